import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { WholesaleClient } from '../client';
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
  const app = await buildGateway({ schemas: await loadContractSchemas(), resolveCaller, requesters, bodyLimitBytes: config.http.bodyLimitBytes, rateLimit: config.rateLimit, log });
  try {
    await app.listen({ port: config.http.port, host: config.http.host });
  } catch (error) {
    await app.close();
    throw error;
  }
  return {
    port: (app.server.address() as AddressInfo).port,
    close: async () => {
      await app.close();
      await requesters.close();
    },
  };
}
