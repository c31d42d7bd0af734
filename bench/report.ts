import type { Latencies } from './drive';
import type { MachineInfo } from './machine';
import type { MonitorSample } from './redis-probe';
import type { PhaseResult, ScenarioResult } from './scenario';
import type { StateFloorResult } from './state-floor';
import type { ForgedFloodResult } from './forged-flood';
import type { TracingCostResult } from './tracing-cost';
import type { DeliveryCostResult } from './delivery-cost';
import type { ChargingCostResult } from './charging-cost';

/** Everything one run measured, printed as Markdown tables (the same text goes to docs/benchmarks.md). */
export interface BenchResults {
  command: string;
  quick: boolean;
  machine: MachineInfo;
  versions: Record<string, string>;
  stack: string;
  load: { start: string; end: string };
  startedAt: string;
  durationSeconds: number;
  subscriptions: number;
  partitions: number;
  inFlight: number;
  phase: { warmupSeconds: number; measureSeconds: number };
  /** bytesPerSubscription: the subscription's state; bytesWithCommandRecords: also its create and activate records (kept 24 h). */
  seeding: { subscriptions: number; seconds: number; bytesPerSubscription: number; bytesWithCommandRecords: number }[];
  /** The balance changes' outcome records after the service's phases: mean MEMORY USAGE of sampled keys, and changes per command of the mix. */
  outcomeRecords?: { sampled: number; meanBytes: number; changesPerCommand: number };
  service?: ScenarioResult;
  echo?: ScenarioResult;
  /** The contract floor: the echo path with the replies, events and Redis read the contract needs (bench/contract-floor.ts). */
  contract?: ScenarioResult;
  forged?: ForgedFloodResult;
  tracing?: TracingCostResult;
  /** The service exactly once and at least once (KAFKA_DELIVERY), one after the other. */
  delivery?: DeliveryCostResult;
  /** Charges only: as UpdateBalances, then as reserve/commit pairs (bench/charging-cost.ts). */
  charging?: ChargingCostResult;
  stateFloor?: StateFloorResult;
  redisBenchmark?: Record<string, number>;
  scaling: ScenarioResult[];
  growth: { subscriptions: number; bytesPerSubscription: number; usedMemoryMiB: number; latency?: Latencies; workerPeakRssMiB?: number; redisCpu?: number; redisForks?: number }[];
  targets: { name: string; target: string; measured: string; met: boolean | undefined }[];
}

const n0 = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? '–' : Math.round(v).toLocaleString('en-US'));
const n1 = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? '–' : v.toFixed(1));
const n2 = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? '–' : v.toFixed(2));
const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined || !b ? '–' : (a / b).toFixed(2));

function table(header: string[], rows: string[][]): string {
  return [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

const cpuCell = (p: PhaseResult | undefined, name: string) => n2(p?.cpu[name]);
/** CPU milliseconds a process spent per reply over the measured window. */
export const cpuMsPerCommand = (p: PhaseResult | undefined, name: string): number | undefined =>
  p && p.throughput > 0 && p.cpu[name] !== undefined ? (p.cpu[name] / p.throughput) * 1000 : undefined;
const msPerCommand = (p: PhaseResult | undefined, name: string) => n2(cpuMsPerCommand(p, name));

const outcomeText = (outcomes: Record<string, number>) =>
  Object.entries(outcomes)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');

function roundTripText(sample: { commands: number; sample: MonitorSample } | undefined): string {
  if (!sample || sample.commands === 0) return '–';
  const per = (counts: Record<string, number>) =>
    Object.entries(counts)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${(v / sample.commands).toFixed(2)}`)
      .join(', ');
  const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0) / sample.commands;
  const { pipelined } = sample.sample;
  const alongside = Object.keys(pipelined).length > 0 ? `; ${total(pipelined).toFixed(2)} sent in the same write as the command before them (${per(pipelined)})` : '';
  return `${total(sample.sample.client).toFixed(2)} round trips (${per(sample.sample.client)})${alongside}; ${total(sample.sample.lua).toFixed(2)} inside scripts`;
}

/**
 * The service's CPU per command split by its floors: what the contract's outputs and state read add to the
 * echo floor (contract floor − echo), and what the service's own work adds to that (service − contract floor).
 */
export function costBetweenFloors(echo: ScenarioResult, contract: ScenarioResult, service: ScenarioResult): { contractIo?: number; ownWork?: number } {
  const [e, c, v] = [echo, contract, service].map((s) => cpuMsPerCommand(s.saturation, 'worker'));
  const difference = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : a - b);
  return { contractIo: difference(c, e), ownWork: difference(v, c) };
}

const roundTripsPerCommand = (s: ScenarioResult) =>
  s.roundTrips && s.roundTrips.commands > 0 ? Object.values(s.roundTrips.sample.client).reduce((a, b) => a + b, 0) / s.roundTrips.commands : undefined;

/** The charging mix: an operation of each way to charge, side by side, and what a charge costs (a pair is two operations). */
function chargingSection(c: ChargingCostResult): string[] {
  const rates = [...new Set([...Object.keys(c.updateBalances.rates), ...Object.keys(c.reserveCommit.rates)].map(Number))].sort((a, b) => a - b);
  const row = (label: string, s: ScenarioResult, perCharge: number) => [
    label,
    n0(s.saturation?.throughput),
    n0(s.saturation ? s.saturation.throughput / perCharge : undefined),
    n1(s.saturation?.latency.p99),
    ...rates.map((rate) => n1(s.rates[rate]?.latency.p99)),
    msPerCommand(s.saturation, 'worker'),
    n2(s.saturation?.redis?.callsPerCommand),
    n2(roundTripsPerCommand(s)),
    outcomeText(s.saturation?.outcomes ?? {}),
  ];
  return [
    '### Charging mix (charges only: UpdateBalances Subtract, or ReserveBalance then CommitReservation)',
    '',
    table(
      [
        'charged by',
        'saturation operations/s',
        'charges/s',
        'saturation p99',
        ...rates.map((rate) => `p99 at ${rate.toLocaleString('en-US')}/s`),
        'worker ms/operation',
        'Redis commands/operation',
        'Redis round trips/operation',
        'outcomes (saturation)',
      ],
      [row('UpdateBalances', c.updateBalances, 1), row('reserve + commit', c.reserveCommit, 2)],
    ),
    '',
    `- Round trips per operation, from a MONITOR sample: UpdateBalances ${roundTripText(c.updateBalances.roundTrips)}; reserve/commit ${roundTripText(c.reserveCommit.roundTrips)}`,
    '',
  ];
}

export function renderReport(r: BenchResults): string {
  const lines: string[] = [];
  const { service, echo, contract } = r;
  lines.push(`## Run of ${r.startedAt}${r.quick ? ' (BENCH_QUICK: shortened)' : ''}`);
  lines.push('');
  lines.push(`- Command: \`${r.command}\``);
  lines.push(
    `- Machine: ${r.machine.cores} cores (${r.machine.cpuModel}), ${r.machine.memoryGiB} GiB; Node ${r.machine.node}; ${Object.entries(r.versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  lines.push(`- Stack: ${r.stack}`);
  lines.push(`- Load average (1/5/15 min) at start ${r.load.start}, at end ${r.load.end}; run took ${n0(r.durationSeconds)} s`);
  lines.push(
    `- Workload per 100 commands: 50 QueryBalances, 40 UpdateBalances, 5 AddBuckets/CancelBuckets, 5 CheckPortInEligibility; ${n0(r.subscriptions)} active subscriptions; ${r.partitions} partitions; saturation = closed loop with ${r.inFlight} calls in flight; each phase ${r.phase.warmupSeconds} s warm-up + ${r.phase.measureSeconds} s measured`,
  );
  lines.push('');

  lines.push('### Throughput at saturation (one worker process)');
  lines.push('');
  const satRow = (name: string, s: ScenarioResult | undefined) => [
    name,
    n0(s?.saturation?.throughput),
    n1(s?.saturation?.latency.p50),
    n1(s?.saturation?.latency.p99),
    cpuCell(s?.saturation, 'worker'),
    msPerCommand(s?.saturation, 'worker'),
    cpuCell(s?.saturation, 'kafka'),
    cpuCell(s?.saturation, 'redis'),
    cpuCell(s?.saturation, 'bench'),
    cpuCell(s?.saturation, 'machine'),
    n0(s?.workerPeakRssMiB),
  ];
  const satRows = [satRow('service', service), satRow('echo (floor: no Redis, no handlers)', echo)];
  if (contract) satRows.push(satRow('contract floor (the replies, events and Redis read the contract needs; no checks, records or scripts)', contract));
  if (service && echo)
    satRows.push([
      '**service / echo**',
      ratio(service.saturation?.throughput, echo.saturation?.throughput),
      '',
      ratio(service.saturation?.latency.p99, echo.saturation?.latency.p99),
      '',
      '',
      '',
      '',
      '',
      '',
      '',
    ]);
  lines.push(
    table(
      ['Worker', 'commands/s', 'p50 ms', 'p99 ms', 'worker CPU (cores)', 'worker CPU ms/command', 'Kafka CPU', 'Redis CPU', 'load generator CPU', 'machine busy (cores)', 'worker peak RSS MiB'],
      satRows,
    ),
  );
  if (service?.saturation) lines.push('', `Outcomes (service, saturation window): ${outcomeText(service.saturation.outcomes)}`);
  lines.push('');

  const rates = Object.keys(service?.rates ?? echo?.rates ?? {}).map(Number);
  if (rates.length > 0) {
    lines.push('### Latency at fixed offered loads (open loop, from the intended send time), ms');
    lines.push('');
    const rows = rates.map((rate) => {
      const s = service?.rates[rate];
      const e = echo?.rates[rate];
      return [
        n0(rate),
        n0(s?.throughput),
        n1(s?.latency.p50),
        n1(s?.latency.p95),
        n1(s?.latency.p99),
        n1(s?.latency.max),
        cpuCell(s, 'worker'),
        msPerCommand(s, 'worker'),
        n1(e?.latency.p50),
        n1(e?.latency.p99),
        n1(e?.latency.max),
        ratio(s?.latency.p99, e?.latency.p99),
      ];
    });
    lines.push(table(['offered/s', 'service replies/s', 'p50', 'p95', 'p99', 'max', 'worker CPU', 'worker ms/command', 'echo p50', 'echo p99', 'echo max', 'p99 service/echo'], rows));
    lines.push('');
  }

  if (contract && service && echo) {
    lines.push('### The service between its floors: where its CPU per command goes');
    lines.push('');
    const row = (name: string, s: ScenarioResult) => [
      name,
      n0(s.saturation?.throughput),
      msPerCommand(s.saturation, 'worker'),
      n1(s.rates[1000]?.latency.p99),
      msPerCommand(s.rates[1000], 'worker'),
    ];
    lines.push(
      table(
        ['Worker', 'saturation commands/s', 'worker CPU ms/command (saturation)', 'p99 at 1,000/s', 'worker CPU ms/command at 1,000/s'],
        [row('echo floor', echo), row('contract floor', contract), row('service', service)],
      ),
    );
    const { contractIo, ownWork } = costBetweenFloors(echo, contract, service);
    lines.push(
      '',
      `At saturation: the contract's replies, events and state read cost ${n2(contractIo)} ms per command over the echo floor; the service's own work (credentials, validation, admission, the atomic step and its record, metrics, spans) ${n2(ownWork)} ms over the contract floor. Throughput, contract floor / echo: ${ratio(contract.saturation?.throughput, echo.saturation?.throughput)}; service / contract floor: ${ratio(service.saturation?.throughput, contract.saturation?.throughput)}.`,
    );
    lines.push('');
  }

  if (r.forged) {
    const f = r.forged;
    lines.push(`### A flood of forged tokens beside valid traffic (${n0(f.validRate)} valid commands/s, open loop; same topic and partitions)`);
    lines.push('');
    const row = (label: string, p: PhaseResult) => [
      label,
      n1(p.latency.p50),
      n1(p.latency.p99),
      n1(p.latency.max),
      n0(p.throughput),
      cpuCell(p, 'worker'),
      cpuCell(p, 'kafka'),
      cpuCell(p, 'bench'),
      outcomeText(p.outcomes),
    ];
    lines.push(
      table(
        ['', 'valid p50', 'valid p99', 'valid max', 'valid replies/s', 'worker CPU', 'Kafka CPU', 'bench CPU', 'valid outcomes'],
        [row('valid alone', f.baseline), row(`beside ${n0(f.floodRate)} forged/s (offered ${n0(f.offeredFloodRate)})`, f.underFlood)],
      ),
    );
    lines.push('');
  }

  if (r.tracing) {
    const t = r.tracing;
    lines.push('### Tracing (OpenTelemetry off, then on: every command traced and exported over OTLP/HTTP)');
    lines.push('');
    const row = (label: string, s: ScenarioResult) => {
      const at1000 = s.rates[1000];
      return [label, n0(s.saturation?.throughput), msPerCommand(s.saturation, 'worker'), n1(at1000?.latency.p50), n1(at1000?.latency.p99), msPerCommand(at1000, 'worker'), n0(s.workerPeakRssMiB)];
    };
    lines.push(
      table(
        ['tracing', 'saturation commands/s', 'worker ms/command (saturation)', 'p50 at 1,000/s', 'p99 at 1,000/s', 'worker ms/command at 1,000/s', 'worker peak RSS MiB'],
        [row('off', t.off), row('on', t.on)],
      ),
    );
    lines.push('');
    lines.push(`Exported while on: ${n0(t.exports.requests)} OTLP requests, ${n0(t.exports.bytes / 1024)} KiB.`);
    lines.push('');
  }

  if (r.delivery) {
    const d = r.delivery;
    lines.push('### Delivery modes (KAFKA_DELIVERY: outputs and offsets in one transaction, or sent then committed)');
    lines.push('');
    const row = (label: string, s: ScenarioResult) => {
      const at1000 = s.rates[1000];
      return [
        label,
        n0(s.saturation?.throughput),
        n1(s.saturation?.latency.p99),
        msPerCommand(s.saturation, 'worker'),
        n1(at1000?.latency.p50),
        n1(at1000?.latency.p99),
        msPerCommand(at1000, 'worker'),
        n0(s.workerPeakRssMiB),
      ];
    };
    lines.push(
      table(
        ['delivery', 'saturation commands/s', 'saturation p99', 'worker ms/command (saturation)', 'p50 at 1,000/s', 'p99 at 1,000/s', 'worker ms/command at 1,000/s', 'worker peak RSS MiB'],
        [
          row('exactly once (default interval)', d.exactlyOnce),
          ...Object.entries(d.byCommitInterval ?? {}).map(([ms, s]) => row(`exactly once, KAFKA_COMMIT_INTERVAL_MS=${ms}`, s)),
          row('at least once', d.atLeastOnce),
        ],
      ),
    );
    lines.push('');
  }

  if (r.charging) lines.push(...chargingSection(r.charging));

  lines.push('### Redis');
  lines.push('');
  const sat = service?.saturation?.redis;
  lines.push(
    `- Commands per service command (INFO commandstats over the saturation window, script-internal commands included): ${n2(sat?.callsPerCommand)}; Redis CPU per command: ${n0(sat?.usecPerCommand)} µs`,
  );
  lines.push(`- Per service command, from a MONITOR sample: ${roundTripText(service?.roundTrips)}`);
  const servicePhases = [service?.saturation, ...Object.values(service?.rates ?? {})].filter((p): p is PhaseResult => p !== undefined);
  const forks = servicePhases.reduce((sum, p) => sum + (p.redis?.forks ?? 0), 0);
  lines.push(`- AOF rewrites (Redis forks) during the service's ${servicePhases.length} measured windows: ${forks} — the workload's own; the seeding's rewrite is done before measuring`);
  if (sat) {
    const perDayGiB = (sat.bytesPerCommand * 1000 * 86_400) / 2 ** 30;
    lines.push(
      `- Redis memory kept per command (recorded outcomes, kept IDEMPOTENCY_TTL_SECONDS = 24 h; ledger entries): ${n0(sat.bytesPerCommand)} bytes — at a steady 1,000 commands/s that is ${n0(perDayGiB)} GiB held for the 24 h window`,
    );
    const memory = sat.memory;
    if (memory) {
      lines.push(
        `  - used_memory grew ${n0(memory.usedGrowth)} bytes per command over the window. Not counted as kept: ${n0(memory.transient)} of client and AOF buffers (commands in flight at the two samples), and the step of ${n0(memory.hashTableGrowth)} the keyspace's hash tables took (entries, and a doubling of their slots in some windows and not others); counted instead: the ${n2(memory.keysAdded)} new keys' share of the tables at the window's end, ${n0(memory.hashTableShare)} (MEMORY STATS, INFO keyspace)`,
      );
    }
    const records = r.outcomeRecords;
    if (records) {
      const perCommand = records.meanBytes * records.changesPerCommand;
      lines.push(
        `  - of which the outcome records: ${n0(records.meanBytes)} bytes each (MEMORY USAGE of ${n0(records.sampled)} sampled \`:done:\` keys: value, key, expiry, allocator) × ${n2(records.changesPerCommand)} changes per command = ${n0(perCommand)} bytes per command (${n1((perCommand * 1000 * 86_400) / 2 ** 30)} GiB per 1,000 commands/s over 24 h); the rest is the ledger's new entries (kept by count, not time) and allocator noise`,
      );
    }
  }
  for (const s of r.seeding) {
    lines.push(
      `- Memory per subscription (plan WP-BASIC + 2 add-ons = 7 sub-balances, its activation in the ledger, renewal entry): ${n0(s.bytesPerSubscription)} bytes; ${n0(s.bytesWithCommandRecords)} bytes while the outcome records of its create and activate commands are kept (IDEMPOTENCY_TTL_SECONDS) — used_memory growth over ${n0(s.subscriptions)} subscriptions, seeded in ${n1(s.seconds)} s`,
    );
  }
  if (r.stateFloor) {
    lines.push(
      `- State floor (the handlers and their Redis calls — admission, the handler's script(s) — without Kafka, ${r.inFlight} in flight on one connection): ${n0(r.stateFloor.throughput)} commands/s, p50 ${n1(r.stateFloor.latency.p50)} ms, p99 ${n1(r.stateFloor.latency.p99)} ms`,
    );
  }
  if (r.redisBenchmark)
    lines.push(
      `- redis-benchmark (50 clients): ${Object.entries(r.redisBenchmark)
        .map(([k, v]) => `${k} ${n0(v)}/s`)
        .join(', ')}`,
    );
  lines.push('');

  if (r.scaling.length > 0) {
    lines.push('### Scaling (service, saturation)');
    lines.push('');
    lines.push(
      table(
        ['Partitions', 'Worker processes', 'commands/s', 'p99 ms', 'worker CPU (cores, all)', 'Kafka CPU', 'Redis CPU', 'machine busy', 'peak RSS MiB (largest)'],
        r.scaling.map((s) => [
          String(s.partitions),
          String(s.workers),
          n0(s.saturation?.throughput),
          n1(s.saturation?.latency.p99),
          cpuCell(s.saturation, 'worker'),
          cpuCell(s.saturation, 'kafka'),
          cpuCell(s.saturation, 'redis'),
          cpuCell(s.saturation, 'machine'),
          n0(s.workerPeakRssMiB),
        ]),
      ),
    );
    lines.push('');
  }

  if (r.growth.length > 0) {
    lines.push('### Growth with the number of subscriptions (service at 1,000 commands/s, open loop)');
    lines.push('');
    lines.push(
      table(
        ['Subscriptions', 'bytes/subscription (added)', 'Redis used_memory MiB', 'p50 ms', 'p99 ms', 'max ms', 'worker peak RSS MiB', 'AOF rewrites in the window'],
        r.growth.map((g) => [
          n0(g.subscriptions),
          n0(g.bytesPerSubscription),
          n0(g.usedMemoryMiB),
          n1(g.latency?.p50),
          n1(g.latency?.p99),
          n1(g.latency?.max),
          n0(g.workerPeakRssMiB),
          n0(g.redisForks),
        ]),
      ),
    );
    lines.push('');
  }

  lines.push('### Targets');
  lines.push('');
  lines.push(
    table(
      ['Target', 'Goal', 'Measured', 'Met'],
      r.targets.map((t) => [t.name, t.target, t.measured, t.met === undefined ? '–' : t.met ? 'yes' : '**no**']),
    ),
  );
  lines.push('');
  return lines.join('\n');
}

/** Issue 16's targets (issue 8's throughput and memory ones are kept where they still apply). */
export function targetsOf(r: Omit<BenchResults, 'targets'>): BenchResults['targets'] {
  const sat = r.service?.saturation?.throughput;
  const echoSat = r.echo?.saturation?.throughput;
  const p99At1000 = r.service?.rates[1000]?.latency.p99;
  const echoP99At1000 = r.echo?.rates[1000]?.latency.p99;
  const rss = r.service?.workerPeakRssMiB;
  const bytes = r.seeding[0]?.bytesPerSubscription;
  const redis = r.service?.saturation?.redis;
  const monitor = r.service?.roundTrips;
  const trips = monitor && monitor.commands > 0 ? Object.values(monitor.sample.client).reduce((a, b) => a + b, 0) / monitor.commands : undefined;
  const workerCpu =
    r.service?.saturation && r.service.saturation.throughput > 0 && r.service.saturation.cpu.worker !== undefined
      ? (r.service.saturation.cpu.worker / r.service.saturation.throughput) * 1000
      : undefined;
  const check = (value: number | undefined, ok: (v: number) => boolean) => (value === undefined || Number.isNaN(value) ? undefined : ok(value));
  const serviceOverEcho = p99At1000 !== undefined && echoP99At1000 ? p99At1000 / echoP99At1000 : undefined;
  return [
    { name: 'Service / echo throughput at saturation', target: '≥ 0.60', measured: ratio(sat, echoSat), met: check(sat && echoSat ? sat / echoSat : undefined, (v) => v >= 0.6) },
    { name: 'p99 at 1,000 commands/s', target: '< 25 ms', measured: `${n1(p99At1000)} ms`, met: check(p99At1000, (v) => v < 25) },
    { name: 'p99 service / echo at 1,000 commands/s', target: '≤ 1.5', measured: n2(serviceOverEcho), met: check(serviceOverEcho, (v) => v <= 1.5) },
    { name: 'Redis round trips per command', target: '≤ 1.05', measured: n2(trips), met: check(trips, (v) => v <= 1.05) },
    { name: 'Redis commands per command (script-internal included)', target: '≤ 4', measured: n2(redis?.callsPerCommand), met: check(redis?.callsPerCommand, (v) => v <= 4) },
    { name: 'Redis memory kept per command (24 h window)', target: '≤ 400 bytes', measured: `${n0(redis?.bytesPerCommand)} bytes`, met: check(redis?.bytesPerCommand, (v) => v <= 400) },
    { name: 'Worker CPU per command at saturation', target: '≤ 0.12 ms', measured: `${n2(workerCpu)} ms`, met: check(workerCpu, (v) => v <= 0.12) },
    { name: 'Worker peak RSS', target: '< 200 MB', measured: `${n0(rss)} MiB`, met: check(rss, (v) => v * 1.048576 < 200) },
    { name: 'Redis memory per subscription', target: '< 2 KB', measured: `${n0(bytes)} bytes`, met: check(bytes, (v) => v < 2048) },
  ];
}
