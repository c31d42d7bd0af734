import { partnerTopics } from '../../../src/contract/partner-topics';
import type { ServiceConfig } from '../../../src/app/config';
import { HEADER } from '../../../src/contract/headers';
import { testAuth, type TestAuth } from '../../support/auth';
import { envFor, testConfig } from '../../support/harness';

/**
 * Configuration of one fault test, as production runs: JWT verification on (a key pair of the test file's
 * own, test/support/auth.ts) and the per-partner rate limiter on, with a limit above any test's rate, so its
 * Redis script is on the path of every command. Topics, prefix and group of its own (testConfig), four
 * partitions, and a 10 s consumer session (the default is 30 s) so that a dead worker's partitions, or a
 * worker's return after a Kafka outage, cost seconds of the suite's budget instead of half a minute each.
 */
export const SESSION_TIMEOUT_MS = 10_000;

/** The one partner of the fault tests, and the customer node its commands act for. */
export const FAULT_PARTNER = 'fault-partner';
export const FAULT_CUSTOMER = 'WC-1';
/** Above every test's command rate (the highest is 800/s), so no valid command is refused. */
export const FAULT_RATE_LIMIT = { perSecond: 5000, burst: 20000 };

let auth: Promise<TestAuth> | undefined;
const faultAuth = () => (auth ??= testAuth({ partners: [{ id: FAULT_PARTNER, name: 'Fault partner', nodes: [{ id: FAULT_CUSTOMER }] }] }));

/**
 * How the workers of the fault suite deliver their outputs: exactly once (the service's default, KAFKA_DELIVERY)
 * unless FAULTS_DELIVERY=at-least-once, the run that shows the copies assertions failing without transactions.
 */
export const FAULT_DELIVERY = process.env.FAULTS_DELIVERY ?? 'exactly-once';

export async function faultConfig(overrides: Record<string, string> = {}): Promise<ServiceConfig> {
  return testConfig({
    KAFKA_DELIVERY: FAULT_DELIVERY,
    ...(await faultAuth()).env,
    RATE_LIMIT_PER_SECOND: String(FAULT_RATE_LIMIT.perSecond),
    RATE_LIMIT_BURST: String(FAULT_RATE_LIMIT.burst),
    TOPIC_PARTITIONS: '4',
    KAFKA_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
    KAFKA_HEARTBEAT_INTERVAL_MS: '1000',
    ...overrides,
  });
}

/** The fault partner's own topics: every reply of the tests' commands comes on them (docs/security.md 2a). */
export const faultPartnerTopics = (config: ServiceConfig) => partnerTopics(config.partnerTopicPrefix, FAULT_PARTNER);

/**
 * The partner's bearer token (valid one hour: longer than any test), one for the run, as a partner's client
 * keeps its token: the service verifies it once (and under a refusal flood serves only tokens it knows).
 */
let token: Promise<string> | undefined;
export function partnerToken(): Promise<string> {
  return (token ??= faultAuth().then((auth) => auth.signer.sign(FAULT_PARTNER)));
}

/** The headers a partner's command carries: its correlation id, its token and the customer it acts for. */
export async function partnerHeaders(correlationId: string, customer = FAULT_CUSTOMER): Promise<Record<string, string>> {
  return { [HEADER.correlationId]: correlationId, [HEADER.authorization]: `Bearer ${await partnerToken()}`, [HEADER.wholesaleCustomerId]: customer };
}

/** Everything a worker child process needs to join this configuration's topics, group and servers. */
export function workerEnv(config: ServiceConfig): Record<string, string> {
  return {
    ...envFor(config),
    KAFKA_BROKERS: config.kafka.brokers.join(','),
    REDIS_URL: config.redis.urls.join(','),
    SCHEMA_REGISTRY_URL: config.schemaRegistryUrl,
    TOPIC_REPLICATION_FACTOR: String(config.kafka.topicReplicationFactor),
    KAFKA_SESSION_TIMEOUT_MS: String(config.kafka.sessionTimeoutMs),
    KAFKA_HEARTBEAT_INTERVAL_MS: String(config.kafka.heartbeatIntervalMs),
    KAFKA_DELIVERY: config.kafka.delivery,
    KAFKA_COMMIT_INTERVAL_MS: String(config.kafka.commitIntervalMs),
    // one static member: only for a test whose workers follow one another, never side by side
    ...(config.kafka.groupInstanceId ? { KAFKA_GROUP_INSTANCE_ID: config.kafka.groupInstanceId } : {}),
  };
}
