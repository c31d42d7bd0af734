import { billingEvent } from '../../domain/balance/billing-events';
import { seedsOf } from '../../domain/balance/seeds';
import { accept, checkAddBuckets, checkCancelBuckets, checkSwapPrimary, type AddBucketsCommand, type CancelBucketsCommand, type SwapPrimaryBucketCommand } from '../../domain/balance/validation';
import type { BucketDefinition, Catalog, PlanDefinition } from '../../domain/catalog/catalog';
import type { Handler } from '../../contract/handlers';
import type { BalanceStore } from './ports';
import { commandMeta, successReply } from './replies';

/** AddBuckets: every id an ADDON of the catalog; each added bucket gets new sub-balances at full allocation. */
export const createAddBuckets =
  (deps: { balances: BalanceStore; catalog: Catalog }): Handler<AddBucketsCommand> =>
  async (command, context) => {
    // refused new (the catalog no longer holds its buckets, its age, the rate): the store only replays, no buckets needed
    const buckets = context.refuseNew ? [] : accept(checkAddBuckets(command, deps.catalog), context.wholesaleCustomerId);
    const outcome = await deps.balances.addBuckets(commandMeta(command.gpsi, context), {
      bucketRefIds: buckets.map((b) => b.bucketRefId),
      seeds: buckets.flatMap(seedsOf),
    });
    return { reply: successReply(outcome.balances), messages: [billingEvent('BucketsAdded', outcome, context.commandId)], replayed: outcome.replayed };
  };

const swapOf = ({ bucket, plan }: { bucket: BucketDefinition; plan: PlanDefinition }) => ({ bucketRefId: bucket.bucketRefId, wholesalePlanId: plan.wholesalePlanId, seeds: seedsOf(bucket) });

/** SwapPrimaryBucket: a PRIMARY bucket other than the current one replaces it; the plan follows (the plan offering it). */
export const createSwapPrimaryBucket =
  (deps: { balances: BalanceStore; catalog: Catalog }): Handler<SwapPrimaryBucketCommand> =>
  async (command, context) => {
    const swap = context.refuseNew
      ? { bucketRefId: command.bucketRefId, wholesalePlanId: '', seeds: [] } // the store only replays: see createAddBuckets
      : swapOf(accept(checkSwapPrimary(command, deps.catalog), context.wholesaleCustomerId));
    const outcome = await deps.balances.swapPrimary(commandMeta(command.gpsi, context), swap);
    return { reply: successReply(outcome.balances), messages: [billingEvent('PrimaryBucketSwapped', outcome, context.commandId)], replayed: outcome.replayed };
  };

/** CancelBuckets: removes add-ons the subscription has (not one it lacks, never the primary). */
export const createCancelBuckets =
  (deps: { balances: BalanceStore }): Handler<CancelBucketsCommand> =>
  async (command, context) => {
    const ids = accept(checkCancelBuckets(command), context.wholesaleCustomerId);
    const outcome = await deps.balances.cancelBuckets(commandMeta(command.gpsi, context), ids);
    return { reply: successReply(outcome.balances), messages: [billingEvent('BucketsCancelled', outcome, context.commandId)], replayed: outcome.replayed };
  };
