import { randomUUID } from 'node:crypto';
import { startLocalRedis } from '../dev/stack';
import { createRedisClient, type RedisClient } from '../src/adapters/redis/client';
import { createBalanceComponents } from '../src/app/balance';
import { loadConfig } from '../src/app/config';
import { loadCatalog } from '../src/app/service';
import { checkUpdateActions } from '../src/domain/balance/validation';
import { benchSubscription, Seeder } from './seed';

/**
 * `npm run bench:scripts`: what the balance scripts cost Redis per call, with no Kafka and no worker — a
 * query and an update on seeded subscriptions (WP-BASIC + two add-ons), `CALLS` each with `IN_FLIGHT` calls
 * in flight on one connection. Redis CPU per call is its process CPU over the calls (INFO cpu); commands per
 * call count the script's own calls too (INFO commandstats). Run it a few times: back to back the update
 * repeated within 1 % and the query within 30 % (17.5–22.9 µs) — less spread than the full benchmark's Redis
 * CPU, which moves with the load; the figure to compare when a script changes.
 */
const SUBSCRIPTIONS = 1_000;
const CALLS = 20_000;
const IN_FLIGHT = 64;

interface Cost {
  operation: string;
  cpuMicrosPerCall: number;
  commandsPerCall: number;
}

async function redisCpuSeconds(redis: RedisClient): Promise<number> {
  const info = await redis.info('cpu');
  const read = (name: string) => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? NaN);
  return read('used_cpu_sys') + read('used_cpu_user');
}

async function commandsCalled(redis: RedisClient): Promise<number> {
  const stats = await redis.info('commandstats');
  return [...stats.matchAll(/calls=(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0);
}

async function measure(redis: RedisClient, operation: string, call: (i: number) => Promise<unknown>): Promise<Cost> {
  await redis.config('RESETSTAT');
  const cpuBefore = await redisCpuSeconds(redis);
  let next = 0;
  const lane = async () => {
    while (next < CALLS) await call(next++);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  const cpu = (await redisCpuSeconds(redis)) - cpuBefore;
  const commands = (await commandsCalled(redis)) - 1; // the INFO cpu read after RESETSTAT
  return { operation, cpuMicrosPerCall: (cpu / CALLS) * 1e6, commandsPerCall: commands / CALLS };
}

async function main(): Promise<void> {
  const server = await startLocalRedis({ appendOnly: false });
  try {
    const config = loadConfig({ KAFKA_BROKERS: 'unused:1', SCHEMA_REGISTRY_URL: 'http://unused', REDIS_URL: server.url, AUTH_MODE: 'none' });
    const catalog = loadCatalog(config.catalogFile);
    const seeder = new Seeder({ redisUrl: server.url, keyPrefix: config.redis.keyPrefix, catalog, idempotencyTtlSeconds: config.limits.idempotencyTtlSeconds });
    await seeder.fill(0, SUBSCRIPTIONS);
    const target = await seeder.updateTarget();
    await seeder.close();
    const redis = createRedisClient({ urls: [server.url], cluster: false });
    const { balances } = createBalanceComponents({ config, catalog, redis });
    const subscription = (i: number) => benchSubscription(i % SUBSCRIPTIONS);
    const costs = [
      await measure(redis, 'QueryBalances', (i) => balances.queryBalances(subscription(i).gpsi, [subscription(i).customer])),
      await measure(redis, 'UpdateBalances (Add or Subtract 1)', (i) => {
        const { gpsi, customer } = subscription(i);
        const action = { subBalanceInstId: `${gpsi}-${target.suffix}`, subBalanceType: target.subBalanceType, unitType: target.unitType, action: i % 2 ? 'Add' : 'Subtract', quantity: 1 };
        const meta = { gpsi, wholesaleCustomerId: customer, commandId: randomUUID(), correlationId: randomUUID(), operation: 'UpdateBalances', at: new Date().toISOString() };
        return balances.updateBalances(meta, checkUpdateActions([action]), {});
      }),
    ];
    redis.disconnect();
    console.log(`| Script call | Redis CPU µs per call | Redis commands per call |\n|---|---:|---:|`);
    for (const c of costs) console.log(`| ${c.operation} | ${c.cpuMicrosPerCall.toFixed(1)} | ${c.commandsPerCall.toFixed(2)} |`);
    console.log(`(${CALLS} calls each, ${IN_FLIGHT} in flight, ${SUBSCRIPTIONS} subscriptions)`);
  } finally {
    await server.dispose();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
