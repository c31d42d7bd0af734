// Readiness: named checks run together, each bounded by a timeout, the report cached briefly so that
// frequent probes (several orchestrators, a load balancer) cost one round of checks. A check that throws
// or times out is a failed check whose detail says why; the report names every failed check.

export interface CheckResult {
  ok: boolean;
  /** Why it failed, or a short fact about the healthy state. */
  detail?: string;
  [fact: string]: unknown;
}

export type Check = () => Promise<CheckResult>;

export interface ReadinessReport {
  ready: boolean;
  /** Names of the failed checks, for a quick look. */
  failed: string[];
  checks: Record<string, CheckResult & { ms: number }>;
  checkedAt: string;
}

export interface ReadinessOptions {
  cacheMs: number;
  timeoutMs: number;
  now?: () => number;
}

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  promise.catch(() => undefined); // a late failure after the timeout is not unhandled
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function runCheck(name: string, check: Check, timeoutMs: number, now: () => number): Promise<CheckResult & { ms: number }> {
  const started = now();
  try {
    const result = await withTimeout(Promise.resolve().then(check), timeoutMs, name);
    return { ...result, ms: now() - started };
  } catch (error) {
    return { ok: false, detail: (error as Error)?.message ?? String(error), ms: now() - started };
  }
}

export function createReadiness(checks: Readonly<Record<string, Check>>, options: ReadinessOptions): () => Promise<ReadinessReport> {
  const now = options.now ?? Date.now;
  // `doneAt` is undefined while an evaluation is in flight: callers share it rather than start another.
  let cached: { doneAt?: number; report: Promise<ReadinessReport> } | undefined;
  const evaluate = async (): Promise<ReadinessReport> => {
    const entries = await Promise.all(Object.entries(checks).map(async ([name, check]) => [name, await runCheck(name, check, options.timeoutMs, now)] as const));
    const failed = entries.filter(([, result]) => !result.ok).map(([name]) => name);
    return { ready: failed.length === 0, failed, checks: Object.fromEntries(entries), checkedAt: new Date(now()).toISOString() };
  };
  return () => {
    const fresh = cached && (cached.doneAt === undefined || now() - cached.doneAt <= options.cacheMs);
    if (!fresh) {
      const entry: { doneAt?: number; report: Promise<ReadinessReport> } = { report: evaluate() };
      void entry.report.then(() => (entry.doneAt = now()));
      cached = entry;
    }
    return cached!.report;
  };
}
