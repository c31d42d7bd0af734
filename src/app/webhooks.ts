import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { connectClusterProbe, type ClusterProbe } from '../adapters/kafka/cluster-probe';
import { startOpsServer, type OpsServer } from '../adapters/http/ops-server';
import { createWebhookPoster } from '../adapters/http/webhook-poster';
import { createRedisClient, type RedisClient } from '../adapters/redis/client';
import { RedisWebhookStore } from '../adapters/redis/webhook-store';
import { WholesaleClient } from '../client/wholesale-client';
import type { ClientConfig } from '../client/config';
import { partnerNamespace, partnerTopics } from '../contract/partner-topics';
import { createReadiness } from '../observability/readiness';
import { WebhookMetrics } from '../observability/webhook-metrics';
import { webhookEventOf } from '../webhooks/cloud-event';
import type { WebhookConfig } from '../webhooks/config';
import { WebhookDispatcher } from '../webhooks/dispatcher';
import type { EventSource } from '../webhooks/ports';

/**
 * Wires the webhook dispatcher: the client library's event subscriptions (one consumer group per
 * partner, `<partner namespace>webhooks`), the registrations and dead letters in Redis, HTTPS posts, the
 * metrics and the ops endpoint. Composition only: the rules are in src/webhooks/.
 */
export interface RunningDispatcher {
  dispatcher: WebhookDispatcher;
  metrics: WebhookMetrics;
  opsPort: number;
  stop(): Promise<void>;
}

/** The consumer group whose committed offsets are a partner's cursor. */
export const webhookGroupId = (config: Pick<WebhookConfig, 'partnerTopicPrefix'>, partnerId: string): string => `${partnerNamespace(config.partnerTopicPrefix, partnerId)}webhooks`;

const eventTopicsOf = (config: WebhookConfig, partnerId: string): string[] => {
  const own = partnerTopics(config.partnerTopicPrefix, partnerId);
  return [own.portinEvents, own.balanceEvents];
};

function clientConfigOf(config: WebhookConfig): ClientConfig {
  return {
    kafka: config.kafka,
    schemaRegistryUrl: config.schemaRegistryUrl,
    topics: config.topics,
    partnerTopicPrefix: config.partnerTopicPrefix,
    sharedCommandTopics: false,
    customersFile: '',
    requestTimeoutMs: 5000,
    logLevel: config.logLevel,
  };
}

export async function startWebhookDispatcher(config: WebhookConfig, log: Logger): Promise<RunningDispatcher> {
  const ca = config.caFile === undefined ? undefined : readFileSync(config.caFile, 'utf8');
  const redis: RedisClient = createRedisClient({ urls: config.redis.urls, cluster: config.redis.cluster, commandTimeoutMs: config.redis.commandTimeoutMs });
  const store = new RedisWebhookStore(redis, config.redis.keyPrefix);
  const client = await WholesaleClient.connect({ config: clientConfigOf(config), log });
  const probe: ClusterProbe = await connectClusterProbe({ brokers: config.kafka.brokers, clientId: `${config.kafka.clientId}-probe`, log, security: config.kafka.security });

  const source: EventSource = {
    subscribe: (partnerId, onEvent) =>
      client.subscribeEvents({
        groupId: webhookGroupId(config, partnerId),
        topics: eventTopicsOf(config, partnerId),
        fromBeginning: config.startFrom === 'earliest',
        partitionsConcurrently: config.partnerConcurrency,
        onEvent: (event) => onEvent(webhookEventOf({ ...event, cloudEvent: { ...event.cloudEvent } })),
      }),
  };
  let dispatcher: WebhookDispatcher | undefined;
  const metrics = new WebhookMetrics({
    partners: () => dispatcher?.partners ?? [],
    lag: (partnerId) => probe.groupLag(webhookGroupId(config, partnerId), eventTopicsOf(config, partnerId)),
  });
  dispatcher = new WebhookDispatcher({
    registrations: store,
    deadLetters: store,
    source,
    poster: createWebhookPoster({ timeoutMs: config.requestTimeoutMs, allowHttp: config.allowHttp, ca, userAgent: config.serviceName }),
    metrics,
    policy: config.policy,
    refreshMs: config.refreshMs,
    redeliveryPollMs: config.redeliveryPollMs,
    sleep: (ms, signal) => sleep(ms, undefined, { signal }),
    log,
  });
  await dispatcher.start();

  const readiness = createReadiness(
    {
      kafka: async () => ({ ok: (await probe.brokerCount()) > 0 }),
      redis: async () => ({ ok: (await redis.ping()) === 'PONG' }),
    },
    { cacheMs: 1000, timeoutMs: 2000 },
  );
  const ops: OpsServer = await startOpsServer({
    port: config.httpPort,
    host: config.httpHost,
    log,
    endpoints: {
      live: () => ({ ok: true }),
      readiness,
      metrics: async () => ({ contentType: metrics.registry.contentType, body: await metrics.registry.metrics() }),
    },
  });
  const running = dispatcher;
  return {
    dispatcher: running,
    metrics,
    opsPort: ops.port,
    stop: async () => {
      await ops.close();
      await running.stop();
      await client.close();
      await probe.disconnect();
      redis.disconnect();
    },
  };
}
