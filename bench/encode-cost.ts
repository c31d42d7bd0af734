import { installPooledEncoder } from '../src/adapters/kafka/pooled-encoder';
import { installRecordEncoder } from '../src/adapters/kafka/record-encoder';

/**
 * `npm run bench:encode`: what kafkajs costs to encode one produce request like the worker's — 24 records of
 * ~850 bytes with three headers over four partitions — with kafkajs's own encoding, with its Encoder patched
 * (src/adapters/kafka/pooled-encoder.ts), then with its record function replaced too (record-encoder.ts).
 * CPU per request (process CPU, garbage collection included) and wall time, after a warm-up; a few seconds
 * in all. The figures to compare when those patches change.
 */
const REQUESTS = 20_000;
const WARM_UP = 2_000;

interface Request { encode(): Promise<unknown> }
type Produce = (args: { acks: number; timeout: number; topicData: unknown[] }) => Request;
type Frame = (args: { correlationId: number; clientId: string; request: Request }) => Promise<unknown>;

const value = Buffer.alloc(700, 7);
const messages = Array.from({ length: 24 }, (_, i) => ({
  key: `1800000000${String(i).padStart(2, '0')}`,
  value,
  headers: { 'X-Correlation-Id': `abcdefgh-1234-5678-9abc-${String(i).padStart(12, '0')}`, 'content-type': 'application/avro', ce_id: 'x'.repeat(40) },
  timestamp: Date.now(),
}));
const topicData = [0, 1, 2, 3].map((partition) => ({
  topic: 'wholesale.partner.100000108464.balance.replies.v1',
  partitions: [{ partition, firstSequence: 0, messages: messages.slice(partition * 6, partition * 6 + 6) }],
}));

/**
 * Runs `install`, then loads kafkajs's produce request and framing afresh: its request module captures the
 * record function when it loads, so each configuration gets its own.
 */
function requestModules(install: () => void): { produce: Produce; frame: Frame } {
  for (const path of Object.keys(require.cache)) if (/kafkajs\/src\/protocol\/(requests|request\.js)/.test(path)) delete require.cache[path];
  install();
  return { produce: require('kafkajs/src/protocol/requests/produce/v3/request') as Produce, frame: require('kafkajs/src/protocol/request') as Frame };
}

async function measure(label: string, install: () => void = () => {}): Promise<void> {
  const { produce, frame } = requestModules(install);
  const encodeOne = () => frame({ correlationId: 1, clientId: 'bench', request: produce({ acks: -1, timeout: 30_000, topicData }) });
  for (let i = 0; i < WARM_UP; i++) await encodeOne();
  const cpu = process.cpuUsage();
  const began = process.hrtime.bigint();
  for (let i = 0; i < REQUESTS; i++) await encodeOne();
  const wallMicros = Number(process.hrtime.bigint() - began) / 1000 / REQUESTS;
  const used = process.cpuUsage(cpu);
  console.log(`| ${label} | ${((used.user + used.system) / REQUESTS).toFixed(0)} | ${wallMicros.toFixed(0)} |`);
}

async function main(): Promise<void> {
  console.log('| Encoding | CPU µs per request | wall µs per request |\n|---|---:|---:|');
  await measure("kafkajs's own");
  await measure('Encoder patched (pooled-encoder.ts)', installPooledEncoder);
  await measure('and records (record-encoder.ts)', () => {
    if (!installRecordEncoder()) throw new Error('the record encoder could not be installed');
  });
  console.log(`(${REQUESTS} produce requests of 24 records each, after ${WARM_UP} unmeasured)`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
