import { existsSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { Kafka, logLevel } from 'kafkajs';
import { startLocalKafka, startLocalRedis, startLocalRegistry, StackStartError } from '../../dev/stack';
import { isPortFree, isPortOpen } from '../../dev/stack/net/ports';
import { readValues } from './read-topic';

jest.setTimeout(300_000); // jest ignores testTimeout in a project's configuration

const seconds = (since: number): string => `${((Date.now() - since) / 1000).toFixed(1)} s`;

/** What fault tests rely on: stop/kill/start of one server keeps its port and its data. */
describe('local servers: stop, kill, start again', () => {
  it('Redis: data survives stop()/start() and kill()/start() on the same port (AOF)', async () => {
    const redis = await startLocalRedis();
    const client = new Redis(redis.url, { maxRetriesPerRequest: null, retryStrategy: () => 200 });
    try {
      await client.set('survivor', 'one');
      await client.set('after-kill', 'two');

      let t = Date.now();
      await redis.stop();
      console.log(`redis stop() ${seconds(t)}`);
      expect(redis.running).toBe(false);
      expect(await isPortOpen(redis.port)).toBe(false);
      t = Date.now();
      await redis.start();
      console.log(`redis start() again ${seconds(t)}`);
      expect(await client.get('survivor')).toBe('one'); // the same client reconnected to the same port

      await client.set('written-before-kill', 'three');
      await new Promise((resolve) => setTimeout(resolve, 1200)); // appendfsync everysec: give it its second
      await redis.kill();
      expect(redis.running).toBe(false);
      await redis.start();
      expect(await client.mget('survivor', 'after-kill', 'written-before-kill')).toEqual(['one', 'two', 'three']);
    } finally {
      client.disconnect();
      await redis.dispose();
    }
    expect(existsSync(redis.dir)).toBe(false);
    expect(await isPortFree(redis.port)).toBe(true);
  });

  it('Redis without appendOnly starts empty after a restart', async () => {
    const redis = await startLocalRedis({ appendOnly: false });
    try {
      const client = new Redis(redis.url);
      await client.set('gone', 'soon');
      client.disconnect();
      await redis.stop();
      await redis.start();
      const again = new Redis(redis.url);
      expect(await again.get('gone')).toBeNull();
      again.disconnect();
    } finally {
      await redis.dispose();
    }
  });

  it('Kafka: stop()/start() and kill()/start() keep the port and every acknowledged message', async () => {
    let t = Date.now();
    const node = await startLocalKafka();
    console.log(`kafka start ${seconds(t)}`);
    const kafka = new Kafka({ clientId: 'lifecycle', brokers: node.brokers, logLevel: logLevel.NOTHING, retry: { retries: 20, maxRetryTime: 2000 } });
    const topic = `lifecycle-${randomUUID()}`;
    const send = async (value: string): Promise<void> => {
      const producer = kafka.producer();
      await producer.connect();
      await producer.send({ topic, acks: -1, messages: [{ value }] });
      await producer.disconnect();
    };
    try {
      await send('before-stop');
      t = Date.now();
      await node.stop();
      console.log(`kafka stop() ${seconds(t)}`);
      t = Date.now();
      await node.start();
      console.log(`kafka start() again ${seconds(t)}`);
      await send('after-restart');
      await node.kill();
      t = Date.now();
      await node.start();
      console.log(`kafka start() after kill ${seconds(t)}`);
      await send('after-kill');

      const values = await readValues(kafka, topic, 3);
      expect(values).toEqual(['before-stop', 'after-restart', 'after-kill']);
    } finally {
      await node.dispose();
    }
    expect(existsSync(node.dir)).toBe(false);
  });

  it('Apicurio Registry: stop()/start() on the same port serves again (in-memory: empty)', async () => {
    const registry = await startLocalRegistry();
    try {
      expect((await fetch(`${registry.url}/subjects`)).status).toBe(200);
      await registry.stop();
      expect(await isPortOpen(registry.port)).toBe(false);
      const t = Date.now();
      await registry.start();
      console.log(`apicurio start() again ${seconds(t)}`);
      expect(await (await fetch(`${registry.url}/subjects`)).json()).toEqual([]);
    } finally {
      await registry.dispose();
    }
  });

  it('a server that cannot start fails with its name, the reason and the tail of its log, and keeps its folder', async () => {
    const failure = startLocalRedis({ extraArgs: ['--no-such-directive', 'yes'] });
    await expect(failure).rejects.toThrow(StackStartError);
    const error = (await failure.catch((e: unknown) => e)) as StackStartError;
    expect(error.message).toMatch(/^redis \d+: exited \(code 1, signal null\) before answering PING/);
    expect(error.logTail).toMatch(/no-such-directive/);
    expect(error.logFile).toBeDefined();
    expect(existsSync(error.logFile!)).toBe(true);
    rmSync(dirname(error.logFile!), { recursive: true }); // kept for a reader; this test has read it
  });
});
