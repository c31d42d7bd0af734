// Reading the side port in tests: GET with the status and body, and samples out of Prometheus text.

export async function httpGet(port: number, path: string): Promise<{ status: number; body: string; contentType: string | null }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: response.status, body: await response.text(), contentType: response.headers.get('content-type') };
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseSamples(text: string): Sample[] {
  return text.split('\n').flatMap((line) => {
    const match = SAMPLE_LINE.exec(line.trim());
    if (!match || line.startsWith('#')) return [];
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(LABEL)].map(([, name, value]) => [name, value]));
    return [{ name: match[1], labels, value: Number(match[3]) }];
  });
}

/** The sum of the samples of `name` whose labels include `labels` (0 when there is none). */
export function sampleSum(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);
}

export async function scrape(port: number): Promise<Sample[]> {
  const { status, body } = await httpGet(port, '/metrics');
  if (status !== 200) throw new Error(`/metrics answered ${status}`);
  return parseSamples(body);
}
