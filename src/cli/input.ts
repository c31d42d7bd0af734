import type { CliIo } from './io';

/** A mistake in how the CLI was called; it exits with the usage code. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

function parseObject(text: string, source: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${source} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError(`${source} must hold a JSON object`);
  return parsed as Record<string, unknown>;
}

/**
 * The command's body: the JSON of --file (or "-" for standard input), then --data, then the field flags,
 * each overriding the one before, so a template file can be completed or corrected from flags.
 */
export async function commandInput(io: CliIo, sources: { file?: string; data?: string }, fields: Record<string, unknown>): Promise<Record<string, unknown>> {
  let fromFile: Record<string, unknown> = {};
  if (sources.file !== undefined) {
    let text: string;
    try {
      text = await io.readFile(sources.file);
    } catch (error) {
      throw new UsageError(`cannot read ${sources.file}: ${(error as Error).message}`);
    }
    fromFile = parseObject(text, sources.file === '-' ? 'standard input' : sources.file);
  }
  const fromData = sources.data === undefined ? {} : parseObject(sources.data, '--data');
  const fromFlags = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  return { ...fromFile, ...fromData, ...fromFlags };
}
