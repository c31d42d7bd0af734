import { randomBytes } from 'node:crypto';
import { brokerProperties, randomClusterId } from './kafka/broker-config';
import { waitForKafkaCluster } from './kafka/readiness';
import { allocatePorts } from './net/ports';
import type { Component, ProvidedServer } from './types';
import { CCOMPAT_PATH, images } from './versions';

type Testcontainers = typeof import('testcontainers');
type StartedTestContainer = import('testcontainers').StartedTestContainer;

/**
 * testcontainers, when a container runtime answers within `timeoutMs`; undefined otherwise (no runtime,
 * or testcontainers not installed, as in a production install). Loaded lazily: it is a dev dependency.
 */
export async function probeContainerRuntime(timeoutMs: number): Promise<{ tc: Testcontainers; host: string } | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)));
  const probe = (async () => {
    const tc = await import('testcontainers');
    const client = await tc.getContainerRuntimeClient();
    return { tc, host: client.info.containerRuntime.host };
  })().catch(() => undefined);
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Image environment variables for Kafka properties: `a.b_c` → `KAFKA_A_B__C`, as apache/kafka reads them. */
export function kafkaImageEnvironment(properties: Readonly<Record<string, string | number | boolean>>): Record<string, string> {
  return Object.fromEntries(Object.entries(properties).map(([key, value]) => [`KAFKA_${key.replace(/_/g, '__').replace(/-/g, '___').replace(/\./g, '_').toUpperCase()}`, String(value)]));
}

/** Starts one component as a container. */
export async function startContainerComponent(component: Component, tc: Testcontainers, host: string, kafkaVersion: string): Promise<ProvidedServer> {
  const IMAGES = images(kafkaVersion);
  const began = Date.now();
  const describe = (what: string, container: StartedTestContainer): string => `${what} in container ${container.getId().slice(0, 12)} (ready in ${((Date.now() - began) / 1000).toFixed(1)} s)`;
  switch (component) {
    case 'kafka': {
      // The advertised address must be the one clients use, known before start: the same free port inside
      // and outside the container.
      const [port] = await allocatePorts({ count: 1 });
      const properties = {
        ...brokerProperties({
          nodeId: 1,
          host: 'localhost',
          port: port,
          controllerPort: 9093,
          voters: [{ nodeId: 1, host: 'localhost', controllerPort: 9093 }],
          logDir: '/tmp/kraft-combined-logs',
        }),
        listeners: `PLAINTEXT://0.0.0.0:${port},CONTROLLER://0.0.0.0:9093`,
        'advertised.listeners': `PLAINTEXT://${host}:${port}`,
      };
      const container = await new tc.GenericContainer(IMAGES.kafka)
        .withEnvironment({ ...kafkaImageEnvironment(properties), CLUSTER_ID: randomClusterId(randomBytes) })
        .withExposedPorts({ container: port, host: port })
        .withWaitStrategy(tc.Wait.forLogMessage(/Kafka Server started/))
        .withStartupTimeout(120_000)
        .start();
      const brokers = [`${host}:${port}`];
      await waitForKafkaCluster(brokers, 1, 60_000);
      return { endpoint: brokers.join(','), description: describe(`${IMAGES.kafka} at ${brokers[0]}`, container), stop: () => stopContainer(container) };
    }
    case 'registry': {
      const container = await new tc.GenericContainer(IMAGES.registry)
        .withEnvironment({ APICURIO_CCOMPAT_USE_CANONICAL_HASH: 'true' })
        .withExposedPorts(8080)
        .withWaitStrategy(tc.Wait.forHttp('/health/ready', 8080))
        .withStartupTimeout(120_000)
        .start();
      const url = `http://${container.getHost()}:${container.getMappedPort(8080)}${CCOMPAT_PATH}`;
      return { endpoint: url, description: describe(`${IMAGES.registry} at ${url}`, container), stop: () => stopContainer(container) };
    }
    case 'redis': {
      const container = await new tc.GenericContainer(IMAGES.redis)
        .withExposedPorts(6379)
        .withWaitStrategy(tc.Wait.forLogMessage(/Ready to accept connections/))
        .start();
      const url = `redis://${container.getHost()}:${container.getMappedPort(6379)}`;
      return { endpoint: url, description: describe(`${IMAGES.redis} at ${url}`, container), stop: () => stopContainer(container) };
    }
  }
}

async function stopContainer(container: StartedTestContainer): Promise<void> {
  await container.stop({ timeout: 5_000 });
}
