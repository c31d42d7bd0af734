import { randomBytes } from 'node:crypto';
import { GenericError } from '@platformatic/kafka';
import type { InboundRecord } from '../../contract/transport';

/**
 * A compressed record batch the consumer does not inflate (bounded-codecs.ts) fails its fetch with
 * `BatchRefused`; the batch's offsets are then found (refused-batch-locator.ts) and the batch is handed on
 * as one placeholder record: at the batch's last offset, without key or value, with a header naming why and
 * the offsets it spans. The worker dead-letters it (`refusedBatchDetail`) and the partition goes on past the batch.
 */
const REFUSAL_HEADER = 'x-wholesale-batch-refused';
/** Placeholders carry this process's secret, so a producer cannot forge a refusal. */
const SECRET = randomBytes(16).toString('hex');

/**
 * Thrown by a codec for a batch it does not inflate; `detail` says why, `fingerprint` names the compressed
 * bytes (a probe fetching the same batch again refuses the same fingerprint). A client error that may not
 * be retried: the client's retries would only fetch and refuse the same batch again.
 */
export class BatchRefused extends GenericError {
  constructor(
    readonly detail: string,
    readonly fingerprint: string,
  ) {
    super('PLT_KFK_UNSUPPORTED_COMPRESSION', `compressed record batch refused: ${detail}`, { canRetry: false });
    this.name = 'BatchRefused';
  }
}

/**
 * A BatchRefused, recognised by its shape too: one made by this module as loaded in another module registry
 * (a test sandbox's; the client's codec table is the process's) is not an instance of this one's class, nor
 * of the sandbox's Error.
 */
const isBatchRefused = (error: unknown): error is BatchRefused =>
  error instanceof BatchRefused ||
  (typeof error === 'object' &&
    error !== null &&
    (error as BatchRefused).name === 'BatchRefused' &&
    typeof (error as BatchRefused).detail === 'string' &&
    typeof (error as BatchRefused).fingerprint === 'string');

/** The BatchRefused in `error`, itself or among its causes and aggregated errors (how the client wraps failures). */
export function batchRefusalIn(error: unknown, seen = new Set<unknown>()): BatchRefused | undefined {
  if (isBatchRefused(error)) return error;
  if (typeof error !== 'object' || error === null || seen.has(error)) return undefined;
  seen.add(error);
  const { cause, errors } = error as { cause?: unknown; errors?: unknown };
  for (const inner of [cause, ...(Array.isArray(errors) ? (errors as unknown[]) : [])]) {
    const found = batchRefusalIn(inner, seen);
    if (found) return found;
  }
  return undefined;
}

/** Where a refused batch lies: its first and last offsets. */
export interface RefusedSpan {
  first: bigint;
  last: bigint;
  detail: string;
}

/**
 * The placeholder of a refused batch: at its last offset, so committing it moves past the whole batch.
 * Its timestamp is the refusal's (the batch's own is inside what was not read).
 */
export function refusalRecord({ first, last, detail }: RefusedSpan): InboundRecord {
  const count = last - first + 1n;
  const spans = `${count} record${count === 1n ? '' : 's'} at offsets ${first}–${last}`;
  return {
    key: null,
    value: null,
    headers: { [REFUSAL_HEADER]: Buffer.from(`${SECRET} ${detail}; its ${spans} skipped`) },
    offset: last.toString(),
    timestamp: String(Date.now()),
  };
}

/** Why the worker must dead-letter this record, when it is the placeholder of a refused batch. */
export function refusedBatchDetail(message: Pick<InboundRecord, 'headers'>): string | undefined {
  const raw = message.headers?.[REFUSAL_HEADER];
  const text = (Array.isArray(raw) ? raw[0] : raw)?.toString();
  return text?.startsWith(`${SECRET} `) ? text.slice(SECRET.length + 1) : undefined;
}
