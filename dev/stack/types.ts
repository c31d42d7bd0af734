/** The servers the service needs, wherever they come from. */
export interface Stack {
  /** env: all endpoints were given; containers: testcontainers; local: child processes on this machine. */
  readonly kind: 'env' | 'containers' | 'local';
  readonly kafkaBrokers: string[];
  /** Confluent-compatible schema registry API (for Apicurio: .../apis/ccompat/v7). */
  readonly schemaRegistryUrl: string;
  readonly redisUrl: string;
  /** Stops what the provider started (nothing for endpoints that were given). */
  stop(): Promise<void>;
  /** One line: the kind and where everything listens (and, for local servers, their folders). */
  describe(): string;
}

export type Component = 'kafka' | 'registry' | 'redis';

/** One started (or given) server: its endpoint and how to stop it. */
export interface ProvidedServer {
  readonly endpoint: string;
  /** Human description: what runs and where, e.g. `Kafka 3.9.1 at 127.0.0.1:15123 (ready in 9.1 s; log …)`. */
  readonly description: string;
  stop(): Promise<void>;
}

/** How a way of providing servers starts one component. */
export type ServerStarter = (component: Component) => Promise<ProvidedServer>;
