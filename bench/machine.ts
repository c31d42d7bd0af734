import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { cores, processCpu, type CpuSample } from './processes';

/** The machine the numbers come from, and how busy it was (other engineers' test runs share it). */
export interface MachineInfo {
  cores: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
}

export function machineInfo(): MachineInfo {
  const model = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpus()[0]?.model ?? 'unknown';
  return { cores: cpus().length, cpuModel: model.trim(), memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10, node: process.version };
}

/** The 1, 5 and 15 minute load averages. */
export const loadAverage = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** Busy and total jiffies of the whole machine (first line of /proc/stat). */
function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/**
 * CPU use of named processes over a window, in cores (1.0 = one core all along), and of the whole
 * machine: what the worker, Kafka, Redis, the registry and the load generator each took, and how much
 * was left to everybody else.
 */
export class CpuProbe {
  private from = new Map<string, CpuSample | undefined>();
  private machineFrom?: { busy: number; total: number };
  private result?: Record<string, number>;

  constructor(private readonly pids: Readonly<Record<string, number[]>>) {}

  start(): void {
    this.from = new Map(Object.entries(this.pids).flatMap(([name, pids]) => pids.map((pid) => [`${name}/${pid}`, processCpu(pid)] as const)));
    this.machineFrom = machineTicks();
  }

  stop(): Record<string, number> {
    const used: Record<string, number> = {};
    for (const [name, pids] of Object.entries(this.pids)) {
      let sum = 0;
      for (const pid of pids) sum += cores(this.from.get(`${name}/${pid}`), processCpu(pid)) ?? 0;
      used[name] = sum;
    }
    const now = machineTicks();
    if (this.machineFrom && now.total > this.machineFrom.total) {
      used.machine = ((now.busy - this.machineFrom.busy) / (now.total - this.machineFrom.total)) * cpus().length;
    }
    this.result = used;
    return used;
  }

  get used(): Record<string, number> | undefined {
    return this.result;
  }
}
