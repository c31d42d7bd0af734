import { RequestTimeoutError, ServiceReplyError, type WholesaleClient } from '../src/client';
import type { PlannedCall, Workload } from './workload';

/**
 * The load drivers. Closed loop (saturation): a fixed number of calls in flight, each lane sending its
 * next command when the previous reply arrives; throughput = replies per second after a warm-up.
 * Open loop (latency at an offered load): command i is due at start + i/rate whatever happened before,
 * and its latency counts from that intended time, so a stalled worker shows up as latency instead of
 * quietly lowering the load (no coordinated omission).
 */
export interface Latencies {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export interface DriveResult {
  /** Replies per second over the measured window. */
  throughput: number;
  /** Commands sent per second over the measured window (open loop: the load actually offered). */
  sentRate: number;
  latency: Latencies;
  /** Replies by outcome: Success or the error code; TIMEOUT and FAILED for calls without a reply. */
  outcomes: Record<string, number>;
  /** Measured window, ms since the epoch (for the CPU samples around it). */
  window: { from: number; to: number };
}

export function summarize(samples: number[]): Latencies {
  const sorted = Float64Array.from(samples).sort();
  const at = (q: number) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]);
  return { count: sorted.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: sorted.length ? sorted[sorted.length - 1] : NaN };
}

const CALL_TIMEOUT_MS = 30_000;

/** Sends one planned call; resolves with its outcome (never rejects). */
async function send(client: WholesaleClient, call: PlannedCall): Promise<string> {
  try {
    await client.call(call.operation, call.input, { wholesaleCustomerId: call.customer, timeoutMs: CALL_TIMEOUT_MS });
    return 'Success';
  } catch (error) {
    if (error instanceof ServiceReplyError) return error.code;
    if (error instanceof RequestTimeoutError) return 'TIMEOUT';
    return 'FAILED';
  }
}

class Recorder {
  readonly samples: number[] = [];
  readonly outcomes: Record<string, number> = {};
  replies = 0;
  sent = 0;

  constructor(
    private readonly from: number,
    private readonly to: number,
  ) {}

  /** Counts what was sent and answered inside the window; latency of calls intended inside it. */
  record(intended: number, sentAt: number, outcome: string): void {
    const now = performance.now();
    if (sentAt >= this.from && sentAt < this.to) this.sent++;
    if (now >= this.from && now < this.to) this.replies++;
    if (intended >= this.from && intended < this.to) {
      this.samples.push(now - intended);
      this.outcomes[outcome] = (this.outcomes[outcome] ?? 0) + 1;
    }
  }

  result(): DriveResult {
    const seconds = (this.to - this.from) / 1000;
    const epoch = Date.now() - performance.now();
    return {
      throughput: this.replies / seconds,
      sentRate: this.sent / seconds,
      latency: summarize(this.samples),
      outcomes: this.outcomes,
      window: { from: epoch + this.from, to: epoch + this.to },
    };
  }
}

export interface PhaseTiming {
  warmupMs: number;
  measureMs: number;
}

/** Closed loop: `inFlight` lanes, each waiting for its reply before sending the next command. */
export async function closedLoop(client: WholesaleClient, workload: Workload, inFlight: number, timing: PhaseTiming): Promise<DriveResult> {
  const start = performance.now();
  const recorder = new Recorder(start + timing.warmupMs, start + timing.warmupMs + timing.measureMs);
  const end = start + timing.warmupMs + timing.measureMs;
  const lane = async () => {
    while (performance.now() < end) {
      const sentAt = performance.now();
      const outcome = await send(client, workload.next());
      recorder.record(sentAt, sentAt, outcome);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return recorder.result();
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

/** Open loop at `rate` commands/s: every call is due at its intended time; latency counts from then. */
export async function openLoop(client: WholesaleClient, workload: Workload, rate: number, timing: PhaseTiming): Promise<DriveResult> {
  const start = performance.now();
  const recorder = new Recorder(start + timing.warmupMs, start + timing.warmupMs + timing.measureMs);
  const total = Math.round((rate * (timing.warmupMs + timing.measureMs)) / 1000);
  const calls: Promise<void>[] = [];
  let sent = 0;
  while (sent < total) {
    const now = performance.now();
    while (sent < total) {
      const intended = start + (sent * 1000) / rate;
      if (intended > now) break;
      calls.push(send(client, workload.next()).then((outcome) => recorder.record(intended, now, outcome)));
      sent++;
    }
    await tick();
  }
  await Promise.all(calls);
  return recorder.result();
}
