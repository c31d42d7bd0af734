import { createHook } from 'node:async_hooks';

/**
 * What still keeps the process alive after a suite's teardown. Left alone, jest waits for it forever ("did
 * not exit one second after the test run") and CI times out without saying why; the suites run with
 * --forceExit, so this report is where such a leak shows. With LEFTOVER_TIMER_STACKS=1 every timer
 * remembers where it was set, and the report names them.
 */
const timerStacks = new Map<number, string>();

export function traceTimersWhenAsked(): void {
  if (process.env.LEFTOVER_TIMER_STACKS !== '1') return;
  createHook({
    init(id, type) {
      if (type === 'Timeout') timerStacks.set(id, new Error().stack!.split('\n').slice(3, 15).join('\n'));
    },
    destroy(id) {
      timerStacks.delete(id);
    },
  }).enable();
}

/**
 * Waits a moment for closing sockets to go, then prints what is left (nothing when all is closed).
 * The wait's timer must keep the process alive: an unref'd one let a teardown with nothing else open end
 * the process right there, with exit code 0, before jest set 1 for the failed tests.
 */
export async function reportLeftovers(graceMs = 1000): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, graceMs));
  const resources = process.getActiveResourcesInfo().filter((kind) => kind !== 'TTYWrap');
  if (resources.length === 0) return;
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().map(describeHandle);
  const stacks = [...timerStacks.values()].map((stack) => `timer set at\n${stack}`);
  console.error(`[teardown] still open after the teardown: ${resources.join(', ')}\n${[...handles, ...stacks].join('\n')}`);
}

function describeHandle(handle: unknown): string {
  const h = handle as { constructor?: { name?: string }; remoteAddress?: string; remotePort?: number; localPort?: number; spawnargs?: string[]; pid?: number; fd?: number };
  const kind = h.constructor?.name ?? typeof handle;
  if (h.spawnargs) return `${kind} pid ${h.pid}: ${h.spawnargs.join(' ').slice(0, 160)}`;
  if (h.remotePort !== undefined) return `${kind} ${h.localPort} → ${h.remoteAddress}:${h.remotePort}`;
  if (h.fd !== undefined) return `${kind} fd ${h.fd}`;
  return kind;
}
