import { ChargingWorkload } from './charging-workload';
import { runScenario, type BenchContext, type ScenarioOptions, type ScenarioResult } from './scenario';
import type { BenchSubscription, UpdateTarget } from './workload';

/**
 * The charging mix: the service worker driven with nothing but charges, first as UpdateBalances Subtracts,
 * then as reserve/commit pairs (bench/charging-workload.ts) — saturation, the offered loads and a MONITOR
 * sample each — so the report can set the cost of an operation of each beside the other (a charge by
 * reservation is two operations).
 */
export interface ChargingCostResult {
  updateBalances: ScenarioResult;
  reserveCommit: ScenarioResult;
}

export async function measureChargingCost(
  context: BenchContext,
  options: Omit<ScenarioOptions, 'name' | 'kind' | 'workload' | 'monitorRate'>,
  subscriptions: readonly BenchSubscription[],
  target: UpdateTarget,
): Promise<ChargingCostResult> {
  const run = (name: string, workload: ChargingWorkload) => runScenario(context, { ...options, name, kind: 'service', workload, monitorRate: 500 });
  const updateBalances = await run('charging-update-balances', new ChargingWorkload(subscriptions, target, 'updateBalances', 40));
  const reserveCommit = await run('charging-reserve-commit', new ChargingWorkload(subscriptions, target, 'reserveCommit', 41));
  context.progress(
    `charging: UpdateBalances ${Math.round(updateBalances.saturation?.throughput ?? 0)}/s, reserve/commit ${Math.round(reserveCommit.saturation?.throughput ?? 0)} operations/s at saturation`,
  );
  return { updateBalances, reserveCommit };
}
