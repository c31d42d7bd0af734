import { replyMessage } from '../src/pipeline/outbound';
import { startFloorWorker } from './floor-worker';

/**
 * The benchmark's floor (npm run bench, docs/benchmarks.md; not for production): the service's
 * request/reply path without its state (bench/floor-worker.ts) — every command is answered with a fixed
 * success record of its operation, without Redis, handler logic or events.
 */
const FIXED_REPLIES: Record<string, object> = {
  'wholesale.balance.v1.QueryBalancesReply': { status: 'Success', balances: [] },
  'wholesale.balance.v1.UpdateBalancesReply': { status: 'Success', balances: [] },
  'wholesale.balance.v1.AddBucketsReply': { status: 'Success', balances: [] },
  'wholesale.balance.v1.CancelBucketsReply': { status: 'Success', balances: [] },
  'wholesale.portin.v1.CheckPortInEligibilityReply': { status: 'Success', eligibilityStatus: 'Eligible', checkedDate: '', reasonCode: null, reasonDesc: null },
};

startFloorWorker('echo-worker', ({ codec, rules }) => async ({ domain, envelope, decoded }) => {
  const replyRecord = `${decoded.recordName}Reply`;
  const fixed = FIXED_REPLIES[replyRecord];
  if (!fixed) throw new Error(`the echo worker has no fixed reply for ${decoded.recordName}`);
  const value = replyRecord.endsWith('EligibilityReply') ? { ...fixed, checkedDate: new Date().toISOString() } : fixed;
  return [replyMessage(envelope, 'Success', await codec.encode(rules[domain].defaultReplyTopic, replyRecord, value))];
});
