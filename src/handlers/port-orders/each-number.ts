import { isServiceError } from '../../contract/errors';
import type { CommandContext, Handler, HandlerResult } from '../../contract/handlers';
import { sha256Hex } from '../../domain/digest';
import { payloadFingerprint } from '../../domain/portin/ids';
import type { NumberRefusal } from '../../domain/port-orders/order';

export type NumberResult = { kind: 'done'; result: HandlerResult } | { kind: 'refused'; refusal: NumberRefusal };

/**
 * Runs one number's single-number command (CreatePortIn, CancelPortIn…) through its own handler, under a
 * command id derived from `identity` so a rerun of the order replays what was done for the number. A
 * refusal (ServiceError) is the number's answer; any other failure is thrown, so the order's command is
 * retried and resumes.
 */
export async function runForNumber(handler: Handler, payload: Record<string, unknown>, context: CommandContext, operation: string, identity: string[]): Promise<NumberResult> {
  const { refuseNew: _refuseNew, ...rest } = context;
  void _refuseNew;
  const numberContext: CommandContext = { ...rest, operation, commandId: sha256Hex(identity.join('\u0000')), fingerprint: payloadFingerprint(payload) };
  try {
    return { kind: 'done', result: await handler(payload, numberContext) };
  } catch (error) {
    if (!isServiceError(error)) throw error;
    const detail = error.problems.map((p) => `${p.path}: ${p.reason}`).join('; ');
    return { kind: 'refused', refusal: { errorCode: error.code, reason: detail ? `${error.message} (${detail})` : error.message } };
  }
}

/** Maps `items` with at most `limit` calls in flight, results in the items' order. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, map: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await map(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  return results;
}
