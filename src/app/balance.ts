import type { Logger } from 'pino';
import type { ServiceConfig } from './config';
import { carryOverTypesOf, type Catalog } from '../domain/catalog/catalog';
import { createBillingClock, type BillingClock } from '../domain/balance/clock';
import type { PublishEvents } from '../pipeline/event-publisher';
import { createRedisBalanceStore } from '../adapters/redis/balance-store';
import type { RedisClient } from '../adapters/redis/client';
import { createRedisRenewalStore } from '../adapters/redis/renewal-store';
import { createRedisReservationExpiryStore, createRedisReservationStore } from '../adapters/redis/reservation-store';
import type { ReservationStore, TopupReferences, TransferStore } from '../handlers/balance-operations/ports';
import { createRedisTransferStore, createRedisTransferSweepStore } from '../adapters/redis/transfer-store';
import { createRedisTopupReferences } from '../adapters/redis/topup-references';
import { createReservationExpiry, type ReservationExpiry } from '../schedulers/reservation-expiry';
import { createTransferSweeper, type TransferSweeper } from '../schedulers/transfer-sweeper';
import { createRedisSubscriptionStore, type SubscriptionStore } from '../adapters/redis/subscription-store';
import type { BalanceStore } from '../handlers/balance/ports';
import { createRenewalScheduler, type RenewalScheduler } from '../schedulers/balance-renewal';

/** Builds the balance side's adapters from the configuration (composition only, no logic). */
export interface BalanceComponents {
  clock: BillingClock;
  /** The SubscriptionLifecycle port-in uses. */
  subscriptions: SubscriptionStore;
  balances: BalanceStore;
  reservations: ReservationStore;
  topupReferences: TopupReferences;
  transfers: TransferStore;
}

export function createBalanceComponents(deps: { config: ServiceConfig; catalog: Catalog; redis: RedisClient }): BalanceComponents {
  const { config, catalog, redis } = deps;
  const clock = createBillingClock(config.balance.timeScale, config.balance.clockOriginMs);
  const settings = {
    keyPrefix: config.redis.keyPrefix,
    outcomeTtlSeconds: config.limits.idempotencyTtlSeconds,
    ledgerRetention: config.balance.ledgerRetention,
  };
  return {
    clock,
    subscriptions: createRedisSubscriptionStore({ redis, catalog, clock, settings }),
    balances: createRedisBalanceStore(redis, { ...settings, clock }),
    reservations: createRedisReservationStore(redis, settings),
    topupReferences: createRedisTopupReferences(redis, settings),
    transfers: createRedisTransferStore(redis, { ...settings, sweepAfterMs: config.balance.transferSweepAfterMs }),
  };
}

export function createBalanceRenewals(deps: { config: ServiceConfig; catalog: Catalog; redis: RedisClient; clock: BillingClock; publish: PublishEvents; log: Logger }): RenewalScheduler {
  const { config } = deps;
  return createRenewalScheduler({
    store: createRedisRenewalStore(deps.redis, {
      keyPrefix: config.redis.keyPrefix,
      ledgerRetention: config.balance.ledgerRetention,
      carryOver: carryOverTypesOf(deps.catalog),
    }),
    clock: deps.clock,
    publish: deps.publish,
    log: deps.log.child({ component: 'balance-renewal' }),
    settings: config.balance.renewal,
  });
}

/** The reservation expiry scheduler, on the renewal scheduler's poll, batch and lease settings. */
export function createReservationExpiries(deps: { config: ServiceConfig; redis: RedisClient; publish: PublishEvents; log: Logger }): ReservationExpiry {
  const { pollIntervalMs, batchSize, leaseMs } = deps.config.balance.renewal;
  return createReservationExpiry({
    store: createRedisReservationExpiryStore(deps.redis, { keyPrefix: deps.config.redis.keyPrefix }),
    publish: deps.publish,
    log: deps.log.child({ component: 'reservation-expiry' }),
    settings: { pollIntervalMs, batchSize, leaseMs },
  });
}

/** The pending-transfer sweeper, on the renewal scheduler's poll, batch and lease settings. */
export function createTransferSweeps(deps: { config: ServiceConfig; redis: RedisClient; transfers: TransferStore; publish: PublishEvents; log: Logger }): TransferSweeper {
  const { pollIntervalMs, batchSize, leaseMs } = deps.config.balance.renewal;
  return createTransferSweeper({
    store: createRedisTransferSweepStore(deps.redis, { keyPrefix: deps.config.redis.keyPrefix }),
    transfers: deps.transfers,
    publish: deps.publish,
    log: deps.log.child({ component: 'transfer-sweeper' }),
    settings: { pollIntervalMs, batchSize, leaseMs },
  });
}
