import type { ServiceConfig } from '../config';
import type { Catalog } from '../domain/catalog/catalog';
import type { RedisClient } from '../adapters/redis/client';
import { RedisNumberFacts } from '../adapters/redis/number-facts';
import type { BalanceComponents } from '../app/balance';
import { createBalanceHandlers } from './balance';
import { createCheckEligibility, validateEligibilityCommand } from './portin/check-eligibility';
import type { HandlerRegistration } from './types';

/** What the handler factories may be given: configuration, the catalog and the Redis client their stores wrap. */
export interface HandlerDeps {
  config: ServiceConfig;
  catalog: Catalog;
  redis: RedisClient;
  /** Balance stores and the subscription lifecycle (src/app/balance.ts). */
  balance: BalanceComponents;
}

const portin = (name: string) => `wholesale.portin.v1.${name}`;

export function createHandlers(deps: HandlerDeps): HandlerRegistration[] {
  const numbers = new RedisNumberFacts(deps.redis, deps.config.redis.keyPrefix);
  return [
    {
      domain: 'portin',
      commandRecord: portin('CheckPortInEligibility'),
      replyRecord: portin('CheckPortInEligibilityReply'),
      validate: validateEligibilityCommand,
      handle: createCheckEligibility({ numbers, nonPortableRanges: deps.config.nonPortableRanges }),
    },
    ...createBalanceHandlers({ balances: deps.balance.balances, catalog: deps.catalog }),
  ];
}
