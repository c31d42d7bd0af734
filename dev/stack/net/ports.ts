import { createConnection, createServer } from 'node:net';

export const LOOPBACK = '127.0.0.1';

export interface PortRequest {
  /** How many ports. */
  readonly count: number;
  /**
   * Companion ports that must be free as well, as offsets from each port: Redis Cluster's bus port is
   * port + 10000. Companions are reserved together with their port.
   */
  readonly offsets?: readonly number[];
  /**
   * Candidate range [from, to). The default stays below Linux's ephemeral range (32768+), where outgoing
   * connections take their local ports, and leaves room for a +10000 companion below it too.
   */
  readonly range?: readonly [number, number];
}

export const DEFAULT_PORT_RANGE: readonly [number, number] = [12000, 22768];
const ATTEMPTS_PER_PORT = 50;

// Ports handed out by this process: two servers started at the same moment never get the same port,
// even before either has bound it.
const handedOut = new Set<number>();

/**
 * Picks `count` ports (each with its companions) that are free now and not handed out before by this
 * process. Pure apart from `isFree`, so it is tested with a fake.
 */
export async function allocatePorts(
  request: PortRequest,
  isFree: (port: number) => Promise<boolean> = isPortFree,
  random: () => number = Math.random,
  taken: Set<number> = handedOut,
): Promise<number[]> {
  const { count, offsets = [], range = DEFAULT_PORT_RANGE } = request;
  const [from, to] = range;
  const ports: number[] = [];
  for (let attempt = 0; ports.length < count; attempt++) {
    if (attempt >= count * ATTEMPTS_PER_PORT) {
      throw new Error(`no ${count} free loopback port(s) with companions +${offsets.join(',+') || 0} in ${from}-${to - 1}`);
    }
    const port = from + Math.floor(random() * (to - from));
    const group = [port, ...offsets.map((offset) => port + offset)];
    if (group.some((p) => p < 1 || p > 65535 || taken.has(p))) continue;
    if (!(await allFree(group, isFree))) continue;
    group.forEach((p) => taken.add(p));
    ports.push(port);
  }
  return ports;
}

async function allFree(ports: number[], isFree: (port: number) => Promise<boolean>): Promise<boolean> {
  for (const port of ports) if (!(await isFree(port))) return false;
  return true;
}

/** True when a listener can bind 127.0.0.1:port right now. */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: LOOPBACK, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** True when something accepts TCP connections on host:port. */
export function isPortOpen(port: number, host = LOOPBACK, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host });
    const finish = (open: boolean): void => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}
