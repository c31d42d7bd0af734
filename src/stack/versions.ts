/**
 * The server versions of every way the stack is provided (local processes, containers, docker-compose.yml):
 * one place, so they never drift apart.
 */
export const KAFKA_VERSION = '3.9.1';
export const SLF4J_RELOAD4J_VERSION = '1.7.36';
/** 3.1.7 (the version first planned) is not on Maven Central; 3.0.9 is the newest 3.x there that runs on Java 17. */
export const APICURIO_VERSION = '3.0.9';
export const REDIS_MAJOR = '7';

export const IMAGES = {
  kafka: `apache/kafka:${KAFKA_VERSION}`,
  registry: `apicurio/apicurio-registry:${APICURIO_VERSION}`,
  redis: `redis:${REDIS_MAJOR}`,
} as const;

/** Confluent-compatible API of Apicurio Registry, relative to its base URL. */
export const CCOMPAT_PATH = '/apis/ccompat/v7';
