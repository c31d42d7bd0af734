import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { ServiceConfig } from '../src/app/config';
import { createBalanceComponents } from '../src/app/balance';
import { createPortInComponents } from '../src/app/portin';
import { loadCatalog } from '../src/app/service';
import { createAccessControl } from '../src/app/access-control';
import { createRedisClient } from '../src/adapters/redis/client';
import { createRedisAdmission, QUOTA_BUCKETS } from '../src/adapters/redis/admission';
import { isServiceError } from '../src/contract/errors';
import { createHandlers } from '../src/handlers';
import { OPERATIONS } from '../src/client/operations';
import { commandIdOf } from '../src/pipeline/command-processor';
import { summarize, type Latencies } from './drive';
import { BENCH_PARTNER } from './auth';
import type { MixedWorkload } from './workload';

/**
 * The state floor: the workload's commands run straight through the service's handlers and Redis stores —
 * admission (rate and quota, one call per partner and event-loop turn), the handler's Lua script(s) (each
 * change records its own outcome), as the worker does — with no Kafka and no Avro, on one ioredis connection with the same number of commands
 * in flight as the worker allows. What Redis and the handlers alone can do on this machine.
 */
export interface StateFloorResult {
  throughput: number;
  latency: Latencies;
  errors: number;
}

export async function stateFloor(config: ServiceConfig, workload: MixedWorkload, inFlight: number, seconds: number): Promise<StateFloorResult> {
  const catalog = loadCatalog(config.catalogFile);
  const redis = createRedisClient({ urls: config.redis.urls, cluster: false });
  const balance = createBalanceComponents({ config, catalog, redis });
  const portin = createPortInComponents({ config, catalog, redis, subscriptions: balance.subscriptions });
  const handlers = new Map(
    createHandlers({ catalog, balances: balance.balances, reservations: balance.reservations, topupReferences: balance.topupReferences, transfers: balance.transfers, portin }).map((h) => [
      h.commandRecord,
      h,
    ]),
  );
  const log = pino({ level: 'silent' });
  const { authorizer } = createAccessControl(config, log);
  const admission = createRedisAdmission(redis, config.redis.keyPrefix, config.rateLimit, {
    quota: config.limits.partnerOutcomeQuota,
    windowSeconds: config.limits.idempotencyTtlSeconds,
    buckets: QUOTA_BUCKETS,
  });
  const samples: number[] = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  const lane = async () => {
    while (performance.now() < end) {
      const call = workload.next();
      const spec = OPERATIONS[call.operation];
      const operation = spec.command.slice(spec.command.lastIndexOf('.') + 1);
      const correlationId = randomUUID();
      const commandId = commandIdOf(call.customer, operation, correlationId);
      const registration = handlers.get(spec.command)!;
      const began = performance.now();
      const scope = authorizer.authorize({ customerId: BENCH_PARTNER }, call.customer);
      await admission.admit(scope.partnerId, !registration.readOnly, Date.now());
      try {
        const fingerprint = commandId; // every command is new here: any fingerprint will do
        const context = {
          correlationId,
          commandId,
          operation,
          wholesaleCustomerId: call.customer,
          canSee: scope.canSee,
          visibleCustomerIds: scope.visibleCustomerIds,
          now: new Date(),
          log,
          fingerprint,
        };
        await registration.handle(call.input, context);
      } catch (error) {
        if (!isServiceError(error)) throw error;
        errors++;
      }
      samples.push(performance.now() - began);
    }
  };
  const began = performance.now();
  await Promise.all(Array.from({ length: inFlight }, lane));
  const elapsed = (performance.now() - began) / 1000;
  await redis.quit();
  return { throughput: samples.length / elapsed, latency: summarize(samples), errors };
}
