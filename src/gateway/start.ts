import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createRedisClient, type RedisClient } from '../adapters/redis/client';
import { WholesaleClient } from '../client';
import { connectBrokerProbe } from '../client/broker-probe';
import { createReadiness } from '../observability/readiness';
import { checkTokenKeySource } from '../security/token-key-check';
import { buildGateway } from './app';
import { callerResolverFor } from './callers';
import type { GatewayConfig } from './config';
import { loadContractSchemas } from './contract-schemas';
import { PartnerClients } from './partner-clients';

export interface RunningGateway {
  /** The port it listens on (HTTP_PORT=0 picks a free one). */
  readonly port: number;
  /** Stops accepting, answers the requests in flight, then closes every partner's client. */
  close(): Promise<void>;
}

/** The gateway of a configuration, listening: what src/entry/gateway.ts runs and the integration tests start. */
export async function startGateway(config: GatewayConfig, log: Logger): Promise<RunningGateway> {
  const resolveCaller = callerResolverFor(config.auth, config.customersFile);
  const requesters = new PartnerClients((partnerId) => WholesaleClient.connect({ config: config.client, partnerId, log }));
  const brokers = await connectBrokerProbe(config.client, log);
  const { auth } = config;
  const { probeTimeoutMs, cacheMs } = config.readiness;
  const readiness = createReadiness(
    {
      kafka: async () => ({ ok: true, detail: `${await brokers.brokerCount()} broker(s)` }),
      ...(auth.mode === 'jwt' ? { tokenKeys: () => checkTokenKeySource(auth.keys, AbortSignal.timeout(probeTimeoutMs)) } : {}),
    },
    { cacheMs, timeoutMs: probeTimeoutMs },
  );
  const shared = config.rateLimit.max > 0 ? config.rateLimit.redis : undefined;
  // no offline queue: a count Redis cannot take now is skipped (skipOnError) instead of holding the request
  const redis: RedisClient | undefined = shared && createRedisClient({ urls: shared.urls, cluster: shared.cluster, maxRetriesPerRequest: 0, commandTimeoutMs: probeTimeoutMs });
  const rateLimit = { max: config.rateLimit.max, windowMs: config.rateLimit.windowMs, ...(redis && shared ? { shared: { redis, keyPrefix: shared.keyPrefix } } : {}) };
  const closeClients = async () => {
    await requesters.close();
    await brokers.close();
    redis?.disconnect();
  };
  const app = await buildGateway({ schemas: await loadContractSchemas(), resolveCaller, requesters, bodyLimitBytes: config.http.bodyLimitBytes, rateLimit, readiness, log });
  try {
    await app.listen({ port: config.http.port, host: config.http.host });
  } catch (error) {
    await app.close();
    await closeClients();
    throw error;
  }
  return {
    port: (app.server.address() as AddressInfo).port,
    close: async () => {
      await app.close();
      await closeClients();
    },
  };
}
