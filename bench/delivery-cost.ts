import { runScenario, type BenchContext, type ScenarioOptions, type ScenarioResult } from './scenario';

/**
 * What exactly-once outputs cost: the same service scenario with KAFKA_DELIVERY=exactly-once (each slice's
 * outputs and offsets in one transaction) and at-least-once (sent, then committed), one after the other in
 * one run and on one stack, so the two differ only in the mode.
 */
export interface DeliveryCostResult {
  exactlyOnce: ScenarioResult;
  atLeastOnce: ScenarioResult;
  /** Exactly once with other commit intervals (BENCH_COMMIT_INTERVALS), by KAFKA_COMMIT_INTERVAL_MS. */
  byCommitInterval: Record<number, ScenarioResult>;
}

export async function measureDeliveryCost(context: BenchContext, options: Omit<ScenarioOptions, 'name' | 'kind' | 'workerEnv'>, commitIntervals: number[] = []): Promise<DeliveryCostResult> {
  const exactlyOnce = await runScenario(context, { ...options, name: 'delivery-exactly-once', kind: 'service', workerEnv: { KAFKA_DELIVERY: 'exactly-once' } });
  const atLeastOnce = await runScenario(context, { ...options, name: 'delivery-at-least-once', kind: 'service', workerEnv: { KAFKA_DELIVERY: 'at-least-once' } });
  context.progress(`delivery: exactly once ${Math.round(exactlyOnce.saturation?.throughput ?? 0)}/s, at least once ${Math.round(atLeastOnce.saturation?.throughput ?? 0)}/s at saturation`);
  const byCommitInterval: Record<number, ScenarioResult> = {};
  for (const ms of commitIntervals) {
    byCommitInterval[ms] = await runScenario(context, {
      ...options,
      name: `delivery-exactly-once-${ms}ms`,
      kind: 'service',
      workerEnv: { KAFKA_DELIVERY: 'exactly-once', KAFKA_COMMIT_INTERVAL_MS: String(ms) },
    });
  }
  return { exactlyOnce, atLeastOnce, byCommitInterval };
}
