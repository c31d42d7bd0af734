import { runScenario, type BenchContext, type ScenarioOptions, type ScenarioResult } from './scenario';

/**
 * What exactly-once outputs cost: the same service scenario with KAFKA_DELIVERY=exactly-once (each slice's
 * outputs and offsets in one transaction) and at-least-once (sent, then committed), one after the other in
 * one run and on one stack, so the two differ only in the mode.
 */
export interface DeliveryCostResult {
  exactlyOnce: ScenarioResult;
  atLeastOnce: ScenarioResult;
}

export async function measureDeliveryCost(context: BenchContext, options: Omit<ScenarioOptions, 'name' | 'kind' | 'workerEnv'>): Promise<DeliveryCostResult> {
  const exactlyOnce = await runScenario(context, { ...options, name: 'delivery-exactly-once', kind: 'service', workerEnv: { KAFKA_DELIVERY: 'exactly-once' } });
  const atLeastOnce = await runScenario(context, { ...options, name: 'delivery-at-least-once', kind: 'service', workerEnv: { KAFKA_DELIVERY: 'at-least-once' } });
  context.progress(`delivery: exactly once ${Math.round(exactlyOnce.saturation?.throughput ?? 0)}/s, at least once ${Math.round(atLeastOnce.saturation?.throughput ?? 0)}/s at saturation`);
  return { exactlyOnce, atLeastOnce };
}
