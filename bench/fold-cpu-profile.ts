import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

/**
 * `npx tsx bench/fold-cpu-profile.ts CPU.….cpuprofile… > folded.txt`: a V8 CPU profile (`node --cpu-prof`,
 * the benchmark's BENCH_CPU_PROF) as folded stacks, one line per distinct stack with its sample count —
 * the input of any flame graph renderer (docs/benchmarks.md names the one used). Idle time is left out;
 * frames read `function (file:line)`, files relative to the checkout, node_modules shortened to the package.
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
}

const root = process.cwd();

function frameName({ functionName, url, lineNumber }: ProfileNode['callFrame']): string {
  const name = functionName || '(anonymous)';
  if (!url) return name;
  const path = url.replace(/^file:\/\//, '');
  const modules = path.lastIndexOf('node_modules/');
  const where =
    modules >= 0
      ? path
          .slice(modules + 'node_modules/'.length)
          .split('/')
          .slice(0, path.includes('/@', modules) ? 2 : 1)
          .join('/')
      : relative(root, path);
  return `${name} (${where}${modules >= 0 ? '' : `:${lineNumber + 1}`})`.replace(/;/g, ',');
}

export function foldProfile(profile: CpuProfile): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const selfSamples = new Map<number, number>();
  for (const id of profile.samples) selfSamples.set(id, (selfSamples.get(id) ?? 0) + 1);
  const folded = new Map<string, number>();
  for (const [id, count] of selfSamples) {
    const frames: string[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const frame = byId.get(at)!.callFrame;
      if (frame.functionName === '(root)') break;
      frames.push(frameName(frame));
    }
    if (frames[0] === '(idle)') continue;
    const stack = frames.reverse().join(';');
    folded.set(stack, (folded.get(stack) ?? 0) + count);
  }
  return folded;
}

if (require.main === module) {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    process.stderr.write('usage: tsx bench/fold-cpu-profile.ts <file.cpuprofile>...\n');
    process.exit(2);
  }
  const total = new Map<string, number>();
  for (const file of files) for (const [stack, count] of foldProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile)) total.set(stack, (total.get(stack) ?? 0) + count);
  for (const [stack, count] of [...total].sort((a, b) => b[1] - a[1])) process.stdout.write(`${stack} ${count}\n`);
}
