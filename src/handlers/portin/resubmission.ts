import { ServiceError } from '../../contract/errors';
import type { HandlerResult } from '../../contract/handlers';
import type { PortInStore } from './ports';

/**
 * A CreatePortIn sent again with the same payload (another correlation id) gets the first reply, so a
 * partner's retry is harmless. Once that request is CANCELLED the first reply ("Success, OPEN") would be a
 * lie: the partner is told the transaction names a cancelled request, and that a new port-in needs a new
 * partnerTransactionId.
 */
export async function answerResubmission(
  store: Pick<PortInStore, 'findTransaction' | 'byRequest'>,
  owner: string,
  partnerTransactionId: string,
  firstReply: Record<string, unknown>,
): Promise<HandlerResult> {
  const ref = await store.findTransaction(owner, partnerTransactionId);
  const request = ref && (await store.byRequest(ref));
  if (request?.portStatus !== 'CANCELLED') return { reply: firstReply };
  const why = request.reasonCode ? ` (${[request.reasonCode, request.reasonDescription].filter(Boolean).join(' ')})` : '';
  throw new ServiceError(
    'CONFLICT',
    `partnerTransactionId ${partnerTransactionId} names the port-in request for ${request.gpsi}, CANCELLED${why}: a new port-in needs a new partnerTransactionId`,
    [{ path: 'partnerTransactionId', reason: `names a CANCELLED port-in request (${request.gpsi})` }],
  );
}
