import { randomBytes, randomUUID } from 'node:crypto';
import { CompressionTypes, Kafka, logLevel } from 'kafkajs';
import { Scenario, type BenchContext, type PhaseResult, type ScenarioOptions } from './scenario';
import { BENCH_CUSTOMERS } from './seed';

/**
 * A flood of commands with forged tokens (issue 13: what a flood of bad tokens costs the valid partners).
 * Each record claims the benchmark partner in a well-formed JWT whose signature is random bytes: the
 * worker must verify the signature to refuse it (the costliest refusal), and the refusal budget of that
 * claimed partner is what bounds the work done after. Keys are random numbers, so the flood shares every
 * partition with the valid traffic. Sent in batches every 10 ms; the rate actually reached is reported.
 */
export interface ForgedFlood {
  /** Records acknowledged per second since the start. */
  stop(): Promise<{ sent: number; seconds: number; ratePerSecond: number }>;
}

const TICK_MS = 10;

export async function startForgedFlood(kafka: Kafka, options: { topic: string; ratePerSecond: number; validToken: string; customer: string }): Promise<ForgedFlood> {
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  const claim = options.validToken.split('.').slice(0, 2).join('.');
  const value = Buffer.from([0, 0, 0, 0, 1, 2, 3]); // never decoded: refused before
  const perTick = Math.max(1, Math.round((options.ratePerSecond * TICK_MS) / 1000));
  const began = performance.now();
  let sent = 0;
  let stopping = false;
  const loop = (async () => {
    let due = began;
    while (!stopping) {
      const messages = Array.from({ length: perTick }, () => ({
        key: `1${String(Math.floor(Math.random() * 1e10)).padStart(10, '0')}`,
        value,
        headers: { 'X-Correlation-Id': randomUUID(), Authorization: `Bearer ${claim}.${randomBytes(64).toString('base64url')}`, wholesaleCustomerId: options.customer },
      }));
      await producer.send({ topic: options.topic, acks: 1, compression: CompressionTypes.None, messages });
      sent += messages.length;
      due += TICK_MS;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();
  return {
    async stop() {
      stopping = true;
      await loop;
      await producer.disconnect();
      const seconds = (performance.now() - began) / 1000;
      return { sent, seconds, ratePerSecond: sent / seconds };
    },
  };
}

export interface ForgedFloodResult {
  validRate: number;
  offeredFloodRate: number;
  /** The flood rate the producer reached (this machine's producer is part of what is measured). */
  floodRate: number;
  /** Valid traffic alone, then beside the flood: latency, outcomes and CPU per process. */
  baseline: PhaseResult;
  underFlood: PhaseResult;
}

/** Valid traffic at `validRate` alone, then with a flood of forged tokens on the same topic and partitions. */
export async function measureForgedFlood(context: BenchContext, options: Omit<ScenarioOptions, 'name' | 'kind'>, validRate: number, floodRate: number): Promise<ForgedFloodResult> {
  const scenario = await Scenario.start(context, { ...options, name: 'forged', kind: 'service' });
  try {
    const baseline = await scenario.atRate(validRate);
    context.progress(`forged: valid ${validRate}/s alone → p99 ${baseline.latency.p99.toFixed(1)} ms`);
    const kafka = new Kafka({ clientId: 'bench-forged', brokers: scenario.config.kafka.brokers, logLevel: logLevel.NOTHING });
    let reached = { sent: 0, seconds: 0, ratePerSecond: 0 };
    const flood = await startForgedFlood(kafka, {
      topic: scenario.config.topics.balanceCommands,
      ratePerSecond: floodRate,
      validToken: await context.tokenProvider(),
      customer: BENCH_CUSTOMERS[0],
    });
    const underFlood = await scenario.atRate(validRate).finally(async () => {
      reached = await flood.stop();
    });
    context.progress(`forged: valid ${validRate}/s beside ${Math.round(reached.ratePerSecond)} forged/s → p99 ${underFlood.latency.p99.toFixed(1)} ms`);
    return { validRate, offeredFloodRate: floodRate, floodRate: reached.ratePerSecond, baseline, underFlood };
  } finally {
    await scenario.stop();
  }
}
