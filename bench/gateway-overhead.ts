import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { provideStack } from '../dev/stack';
import { createDevSigner, devAuthEnv } from '../dev/keys/dev-signer';
import { loadConfig } from '../src/app/config';
import { startService } from '../src/app/service';
import { WholesaleClient } from '../src/client';
import { loadClientConfig } from '../src/client/config';
import { EnvReader } from '../src/config/env';
import { TOPIC_VARIABLES } from '../src/config/kafka';
import { buildGateway } from '../src/gateway/app';
import { loadContractSchemas } from '../src/gateway/contract-schemas';
import { DEFAULT_TOPIC_NAMES, type TopicRole } from '../src/contract/topics';

/**
 * `npm run bench:gateway`: the HTTP gateway's own cost. The same operation (CheckPortInEligibility, a brand
 * of config/customers.json, a signed token) at the same open-loop rate, first through WholesaleClient
 * straight on Kafka, then over HTTP through the gateway (its production entry point in a process of its
 * own); latency is counted from each request's scheduled time, so a stall is not hidden. The difference of
 * the two is what the gateway adds. BENCH_GATEWAY_RATE (500/s), BENCH_GATEWAY_SECONDS (20, after a warm-up
 * of a quarter of it). Endpoints as for the tests: KAFKA_BROKERS, SCHEMA_REGISTRY_URL (else started), REDIS_URL.
 */
const reader = new EnvReader(process.env);
const RATE = reader.integer('BENCH_GATEWAY_RATE', 500, 1, 100_000);
const SECONDS = reader.integer('BENCH_GATEWAY_SECONDS', 20, 1, 3600);
const CUSTOMER = '100000108465';
const PARTNER = '100000108464';
const ROOT = join(__dirname, '..');

const gpsi = () => `1${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}42`;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** Calls `send` RATE times a second for `seconds`; the latencies (ms, from the scheduled time) of those after the warm-up. */
async function openLoop(seconds: number, warmupSeconds: number, send: () => Promise<void>): Promise<{ latencies: number[]; failed: number; firstError?: string }> {
  const latencies: number[] = [];
  let failed = 0;
  let firstError: string | undefined;
  const began = performance.now();
  const total = Math.round((seconds + warmupSeconds) * RATE);
  const pending: Promise<void>[] = [];
  let issued = 0;
  while (issued < total) {
    const due = Math.min(total, Math.floor(((performance.now() - began) / 1000) * RATE));
    for (; issued < due; issued++) {
      const scheduled = began + (issued / RATE) * 1000;
      const measured = issued >= warmupSeconds * RATE;
      pending.push(
        send().then(
          () => void (measured && latencies.push(performance.now() - scheduled)),
          (error: Error) => {
            failed++;
            firstError ??= error.message;
          },
        ),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(pending);
  if (latencies.length === 0) throw new Error(`every request failed, the first with: ${firstError}`);
  return { latencies: latencies.sort((a, b) => a - b), failed, firstError };
}

const summary = (name: string, run: { latencies: number[]; failed: number; firstError?: string }) => ({
  path: name,
  requests: run.latencies.length,
  failed: run.failed,
  p50: +percentile(run.latencies, 50).toFixed(2),
  p90: +percentile(run.latencies, 90).toFixed(2),
  p99: +percentile(run.latencies, 99).toFixed(2),
  max: +run.latencies[run.latencies.length - 1].toFixed(2),
  ...(run.firstError ? { firstError: run.firstError } : {}),
});

/**
 * The HTTP layer alone (routing, JSON parsing, validation, serialization, error mapping), in this process
 * through fastify's inject, with a requester that answers at once: its CPU per request, without Kafka.
 */
async function httpLayerCpu(requests = 3000): Promise<{ cpuMsPerRequest: number; wallMsPerRequest: number }> {
  const reply = { status: 'Success', eligibilityStatus: 'Eligible', checkedDate: '2026-01-01T00:00:00Z', reasonCode: null, reasonDesc: null };
  const app = await buildGateway({
    schemas: await loadContractSchemas(),
    resolveCaller: async () => ({ partnerId: PARTNER, token: 'verified' }),
    requesters: { forPartner: async () => ({ call: async () => reply as never }) },
    bodyLimitBytes: 65536,
    rateLimit: { max: 1_000_000, windowMs: 1000 },
  });
  await app.ready();
  const cpu = process.cpuUsage();
  const began = performance.now();
  for (let i = 0; i < requests; i++) {
    await app.inject({ method: 'POST', url: '/portins/eligibility', headers: { 'content-type': 'application/json', authorization: 'Bearer a.b.c' }, payload: JSON.stringify({ gpsi: gpsi() }) });
  }
  const used = process.cpuUsage(cpu);
  await app.close();
  return { cpuMsPerRequest: +((used.user + used.system) / 1000 / requests).toFixed(3), wallMsPerRequest: +((performance.now() - began) / requests).toFixed(3) };
}

async function main(): Promise<void> {
  const layer = await httpLayerCpu();
  console.log(`the HTTP layer alone (fastify inject, no Kafka): ${layer.cpuMsPerRequest} ms CPU and ${layer.wallMsPerRequest} ms wall per request`);
  const stack = await provideStack();
  const dir = mkdtempSync(join(tmpdir(), 'bench-gateway-'));
  const signer = await createDevSigner({ dir: join(dir, 'keys') });
  const id = randomUUID().slice(0, 8);
  const env: Record<string, string> = {
    KAFKA_BROKERS: stack.kafkaBrokers.join(','),
    SCHEMA_REGISTRY_URL: stack.schemaRegistryUrl,
    REDIS_URL: stack.redisUrl,
    ...Object.fromEntries(Object.entries(TOPIC_VARIABLES).map(([role, variable]) => [variable, `${DEFAULT_TOPIC_NAMES[role as TopicRole]}.bench-${id}`])),
    PARTNER_TOPIC_PREFIX: `bench${id}.partner.`,
    REDIS_KEY_PREFIX: `bench${id}:`,
    KAFKA_GROUP_ID: `bench-workers-${id}`,
    CUSTOMERS_FILE: join(ROOT, 'config', 'customers.json'),
    ...devAuthEnv(signer.keys),
    DLQ_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    RATE_LIMIT_PER_SECOND: '0',
    LOG_LEVEL: 'warn',
  };
  const service = await startService(loadConfig(env), pino({ level: 'warn' }));
  await service.joined;
  const token = await signer.sign(CUSTOMER);
  const client = await WholesaleClient.connect({ config: loadClientConfig(env), partnerId: PARTNER, wholesaleCustomerId: CUSTOMER, tokenProvider: async () => token });
  const gateway = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), [join(ROOT, 'src', 'entry', 'gateway.ts')], {
    env: { ...process.env, ...env, HTTP_PORT: '0', HTTP_HOST: '127.0.0.1', GATEWAY_RATE_LIMIT_MAX: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let buffered = '';
      gateway.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const line = buffered.split('\n').find((l) => l.includes('"gateway started"'));
        if (line) resolve((JSON.parse(line) as { port: number }).port);
      });
      gateway.once('exit', (code) => reject(new Error(`the gateway exited (${code}) before it listened`)));
    });
    const url = `http://127.0.0.1:${port}/portins/eligibility`;
    const overHttp = async () => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', wholesaleCustomerId: CUSTOMER },
        body: JSON.stringify({ gpsi: gpsi() }),
      });
      if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
      await response.arrayBuffer();
    };
    const overKafka = async () => void (await client.checkPortInEligibility({ gpsi: gpsi() }));
    await overHttp(); // the gateway's client for the partner connects on its first request
    const warmup = Math.max(1, Math.round(SECONDS / 4));
    const kafka = summary('WholesaleClient on Kafka', await openLoop(SECONDS, warmup, overKafka));
    const http = summary('HTTP via the gateway', await openLoop(SECONDS, warmup, overHttp));
    console.log(`\nCheckPortInEligibility at ${RATE}/s for ${SECONDS} s each (after ${warmup} s of warm-up), latency in ms from the scheduled send:`);
    console.table([kafka, http]);
    console.log(`gateway overhead: p50 +${(http.p50 - kafka.p50).toFixed(2)} ms, p99 +${(http.p99 - kafka.p99).toFixed(2)} ms`);
  } finally {
    gateway.kill('SIGTERM');
    await client.close();
    await service.stop();
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
