// The server versions of every way the stack is provided (local processes, containers, docker-compose.yml):
// one place, so they never drift apart.
//
// Kafka 4 is the default: 3.9 is the last 3.x line and users run 4.x. kafkajs 2.2.4 predates 4.x, but every
// request version it sends is still served by 4.4 (the suites pass on both). STACK_KAFKA_VERSION=3.9.1 runs
// everything against the 3.x line instead.

export const DEFAULT_KAFKA_VERSION = '4.4.0';
/** The other tested line: `STACK_KAFKA_VERSION=3.9.1`. */
export const KAFKA_3_VERSION = '3.9.1';
/** 3.1.7 (the version first planned) is not on Maven Central; 3.0.9 is the newest 3.x there that runs on Java 17. */
export const APICURIO_VERSION = '3.0.9';
export const REDIS_MAJOR = '7';

/**
 * Kafka core brings no logging backend on Maven. 3.x logs through log4j 1 (the reload4j binding of SLF4J 1);
 * 4.x through log4j2, whose core it brings itself: only the SLF4J 1 → log4j2 bridge is added, and the
 * broker reads a log4j2 configuration (`-Dlog4j2.configurationFile`), as Kafka 4's own scripts do.
 */
export interface KafkaLogging {
  readonly flavour: 'log4j' | 'log4j2';
  /** Maven coordinates of the SLF4J binding added to Kafka's class path. */
  readonly binding: { readonly groupId: string; readonly artifactId: string; readonly version: string };
}

const LOG4J2_VERSION = '2.25.5';
const SLF4J_RELOAD4J_VERSION = '1.7.36';

export function kafkaMajor(version: string): number {
  const major = Number(version.split('.')[0]);
  if (!Number.isInteger(major)) throw new Error(`not a Kafka version: ${version}`);
  return major;
}

export function kafkaLogging(version: string): KafkaLogging {
  return kafkaMajor(version) >= 4
    ? { flavour: 'log4j2', binding: { groupId: 'org.apache.logging.log4j', artifactId: 'log4j-slf4j-impl', version: LOG4J2_VERSION } }
    : { flavour: 'log4j', binding: { groupId: 'org.slf4j', artifactId: 'slf4j-reload4j', version: SLF4J_RELOAD4J_VERSION } };
}

export function images(kafkaVersion: string) {
  return {
    kafka: `apache/kafka:${kafkaVersion}`,
    registry: `apicurio/apicurio-registry:${APICURIO_VERSION}`,
    redis: `redis:${REDIS_MAJOR}`,
  } as const;
}

/** Confluent-compatible API of Apicurio Registry, relative to its base URL. */
export const CCOMPAT_PATH = '/apis/ccompat/v7';
