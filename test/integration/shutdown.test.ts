import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { createTopics, envFor, testConfig, TestRequester } from '../support/harness';

/** The worker as it runs in production: a separate process, stopped by SIGTERM. */
const ROOT = join(__dirname, '..', '..');
const ELIGIBILITY = 'wholesale.portin.v1.CheckPortInEligibility';

function startWorkerProcess(env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(ROOT, 'src', 'entry', 'worker.ts')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

describe('graceful shutdown', () => {
  it('on SIGTERM finishes in-flight work, commits every handled offset and exits 0', async () => {
    const config = testConfig();
    const groupId = config.groupId;
    await createTopics(config);
    const worker = startWorkerProcess({ ...envFor(config), LOG_LEVEL: 'info' });
    const deadline = Date.now() + 60000;
    while (!worker.output().includes('worker started')) {
      if (Date.now() > deadline) throw new Error(`worker did not start:\n${worker.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const requester = await TestRequester.start(config);
    try {
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) => requester.send('portinCommands', ELIGIBILITY, { gpsi: `1555000${String(i).padStart(4, '0')}` })),
      );
      expect(replies.every((r) => r.value.status === 'Success')).toBe(true);
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
      expect(worker.output()).toContain('service stopped');

      const admin = new Kafka({ brokers: config.kafka.brokers, logLevel: logLevel.NOTHING }).admin();
      await admin.connect();
      const [committed] = await admin.fetchOffsets({ groupId, topics: [config.topics.portinCommands] });
      const ends = await admin.fetchTopicOffsets(config.topics.portinCommands);
      await admin.disconnect();
      for (const end of ends) {
        const partition = committed.partitions.find((p) => p.partition === end.partition);
        expect({ partition: end.partition, committed: partition?.offset }).toEqual({ partition: end.partition, committed: end.high });
      }
    } finally {
      worker.child.kill('SIGKILL');
      await requester.stop();
    }
  });
});
