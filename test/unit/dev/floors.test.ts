import { costBetweenFloors, cpuMsPerCommand } from '../../../bench/report';
import type { ScenarioResult } from '../../../bench/scenario';

const scenario = (kind: ScenarioResult['kind'], throughput: number, workerCores: number | undefined): ScenarioResult => ({
  name: kind,
  kind,
  partitions: 4,
  workers: 1,
  rates: {},
  startSeconds: 1,
  saturation: {
    throughput,
    sentRate: throughput,
    cpu: workerCores === undefined ? {} : { worker: workerCores },
    latency: { count: 1, p50: 1, p95: 1, p99: 1, max: 1 },
    outcomes: {},
    window: { from: 0, to: 12_000 },
  },
});

describe('the service between its floors', () => {
  it("reads CPU per command as the worker's cores over its replies per second", () => {
    expect(cpuMsPerCommand(scenario('echo', 10_000, 0.8).saturation, 'worker')).toBeCloseTo(0.08);
  });

  it("splits the service's CPU per command into the contract's outputs and its own work", () => {
    const split = costBetweenFloors(scenario('echo', 10_000, 0.8), scenario('contract', 5_000, 0.75), scenario('service', 3_000, 0.84));
    expect(split.contractIo).toBeCloseTo(0.15 - 0.08);
    expect(split.ownWork).toBeCloseTo(0.28 - 0.15);
  });

  it('leaves a part unknown when a floor measured no CPU or no replies', () => {
    expect(costBetweenFloors(scenario('echo', 10_000, undefined), scenario('contract', 5_000, 0.75), scenario('service', 0, 0.8))).toEqual({ contractIo: undefined, ownWork: undefined });
  });
});
