/** Polls `probe` until it returns something other than undefined, or fails naming what it waited for. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, options: { timeoutMs?: number; intervalMs?: number } = {}): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
}
