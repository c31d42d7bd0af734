import { loadCatalog, eventRouting } from '../src/app/service';
import { createBalanceComponents } from '../src/app/balance';
import { createRedisClient } from '../src/adapters/redis/client';
import { billingEvent } from '../src/domain/balance/billing-events';
import type { BalanceOutcome } from '../src/domain/balance/outcome';
import type { SubBalance } from '../src/domain/balance/model';
import { successReply } from '../src/handlers/balance/replies';
import { commandIdOf } from '../src/pipeline/command-processor';
import { routeOutgoing } from '../src/pipeline/event-routes';
import { cloudEventHeaders, replyMessage } from '../src/pipeline/outbound';
import { echoAnswer, startFloorWorker } from './floor-worker';

/**
 * The contract floor (npm run bench, docs/benchmarks.md; not for production): what the contract itself
 * makes a worker send and read, with nothing the service decides. On the echo floor's path
 * (bench/floor-worker.ts) every balance command makes one Redis read through the service's own store (the
 * subscription's balances hash, decoded: QueryBalances's whole Redis work) and is answered with the reply
 * the service would give, every sub-balance in it; a change also publishes its billing event, to the
 * operator's topic and the partner's copy, with its CloudEvents headers. No credentials, validation,
 * admission, idempotency record, Lua script, metric or span: the service minus this floor is what its own
 * logic costs; this floor minus the echo floor is what the contract's replies, events and state read cost.
 */
const CHANGE_EVENTS = { UpdateBalances: 'BalancesUpdated', AddBuckets: 'BucketsAdded', CancelBuckets: 'BucketsCancelled' } as const;
type ChangeOperation = keyof typeof CHANGE_EVENTS;

/** An outcome of the shape a change records: one sub-balance's change, every balance after it. */
function outcomeOf(gpsi: string, customer: string, correlationId: string, commandId: string, balances: SubBalance[]): BalanceOutcome {
  const [changed] = balances;
  return {
    at: new Date().toISOString(),
    correlationId,
    causeId: commandId,
    subscription: {
      gpsi,
      subscriptionId: `SUBSCR-${gpsi}`,
      subscriberId: `SUB-${gpsi}`,
      wholesaleCustomerId: customer,
      wholesalePlanId: 'WP-BASIC',
      billCycleFrequency: 'MONTHLY',
      billCycleStartDay: 1,
      billCycleTimeZone: 'UTC',
      status: 'ACTIVE',
      cycleNo: 1,
      cycleStart: '2026-11-01T00:00:00.000Z',
      nextRenewalAt: '2026-12-01T00:00:00.000Z',
    },
    changes: changed ? [{ ...changed, change: 'Subtract', quantity: 1000, before: changed, after: changed }] : [],
    balances,
    bucketRefIds: changed ? [changed.bucketRefId] : [],
    replayed: false,
  };
}

startFloorWorker('contract-floor', (wiring) => {
  const { config, codec, rules, hierarchy } = wiring;
  const redis = createRedisClient(config.redis);
  const { balances: store } = createBalanceComponents({ config, catalog: loadCatalog(config.catalogFile), redis });
  const routing = eventRouting(config, hierarchy);
  const encode = (topic: string, recordName: string, value: object) => codec.encode(topic, recordName, value);
  const echo = echoAnswer(wiring);
  return async (command) => {
    const { domain, envelope, decoded, operation } = command;
    if (domain !== 'balance') return echo(command); // CheckPortInEligibility (5 of 100): as the echo floor answers it
    const replyRecord = `${decoded.recordName}Reply`;
    const replyTopic = rules[domain].defaultReplyTopic;
    const { gpsi } = decoded.value as { gpsi: string };
    const customer = envelope.wholesaleCustomerId ?? '';
    const { balances } = await store.queryBalances(gpsi, [customer]);
    const reply = replyMessage(envelope, 'Success', await encode(replyTopic, replyRecord, successReply(balances)));
    const eventType = CHANGE_EVENTS[operation as ChangeOperation];
    if (eventType === undefined) return [reply];
    const commandId = commandIdOf(customer, operation, envelope.correlationId);
    const event = billingEvent(eventType, outcomeOf(gpsi, customer, envelope.correlationId, commandId, balances), commandId);
    const headers = cloudEventHeaders({ ...event.cloudEvent!, source: config.serviceName, type: event.recordName, correlationId: envelope.correlationId, causationId: commandId });
    return [reply, ...(await routeOutgoing(routing, encode, event, headers))];
  };
});
