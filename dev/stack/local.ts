import { spawnSync } from 'node:child_process';
import type { StackConfig } from './config';
import { distributionsCached } from './artifacts/distributions';
import { startLocalKafka } from './kafka/local-kafka';
import { startLocalRedis } from './redis/local-redis';
import { startLocalRegistry } from './registry/local-registry';
import type { Component, ProvidedServer } from './types';
import { APICURIO_VERSION } from './versions';

const seconds = (since: number): string => `${((Date.now() - since) / 1000).toFixed(1)} s`;

/** Starts one component of the local stack as a child process (see startLocalKafka & co.). */
export async function startLocalComponent(component: Component, config: StackConfig): Promise<ProvidedServer> {
  const began = Date.now();
  const common = { keepFiles: config.keepFiles, cacheDir: config.cacheDir };
  switch (component) {
    case 'kafka': {
      const kafka = await startLocalKafka({ ...common, kafkaVersion: config.kafkaVersion });
      return server(kafka.brokers.join(','), `Kafka ${config.kafkaVersion} (KRaft) at ${kafka.brokers.join(',')}`, began, kafka);
    }
    case 'registry': {
      const registry = await startLocalRegistry(common);
      return server(registry.url, `Apicurio Registry ${APICURIO_VERSION} at ${registry.url}`, began, registry);
    }
    case 'redis': {
      const redis = await startLocalRedis({ keepFiles: config.keepFiles });
      return server(redis.url, `redis-server at ${redis.url}`, began, redis);
    }
  }
}

function server(endpoint: string, what: string, began: number, control: { dispose(): Promise<void>; logFile: string }): ProvidedServer {
  return { endpoint, description: `${what} (ready in ${seconds(began)}; log ${control.logFile})`, stop: () => control.dispose() };
}

/** What the local stack lacks on this machine for these components; empty when it can run. */
export function missingLocalPrerequisites(components: readonly Component[], cacheDir: string, kafkaVersion: string): string[] {
  const missing: string[] = [];
  const needsJava = components.some((c) => c === 'kafka' || c === 'registry');
  if (needsJava && !answers('java', ['-version'])) missing.push('java (17 or newer)');
  if (needsJava && !distributionsCached(cacheDir, kafkaVersion) && !answers('mvn', ['-v'])) missing.push('mvn (Maven, to fetch Kafka and Apicurio from Maven Central)');
  if (components.includes('redis') && !answers('redis-server', ['--version'])) missing.push('redis-server');
  return missing;
}

function answers(command: string, args: readonly string[]): boolean {
  const result = spawnSync(command, args, { stdio: 'ignore', timeout: 10_000 });
  return result.error === undefined && result.status === 0;
}
