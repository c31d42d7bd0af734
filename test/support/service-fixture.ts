import type { Logger } from 'pino';
import type { ServiceConfig } from '../../src/app/config';
import type { RunningService, startService } from '../../src/app/service';
import { startTestService, testConfig, TestRequester } from './harness';

type Env = Record<string, string>;
type Stoppable = { stop(): Promise<unknown> } | { close(): Promise<unknown> };

export interface ServiceFixtureOptions {
  /** Settings over testConfig's; a function when they depend on something a beforeAll declared earlier prepared (testAuth()). */
  env?: Env | (() => Env | Promise<Env>);
  /** What must exist before the service starts (topics provisioned, schemas registered), on the file's configuration. */
  prepare?: (config: ServiceConfig) => Promise<unknown>;
  /** A TestRequester too: true reads every reply topic, a function names them. */
  requester?: boolean | ((config: ServiceConfig) => string[]);
  /** Options of startService (e.g. httpPort). */
  start?: Parameters<typeof startService>[2];
  /** The service's logger when a test reads what it logs (else testLogger). */
  log?: Logger;
  /** false: hand the service over before its consumer joined its group (a test of what it answers meanwhile). */
  awaitJoin?: boolean;
}

/** The running service of a test file; read its fields inside tests and hooks (they are set in beforeAll). */
export interface ServiceFixture {
  readonly config: ServiceConfig;
  readonly service: RunningService;
  readonly requester: TestRequester;
  /** Stops (or closes) `client` before the requester and the service when the file ends (the last tracked first). */
  track<T extends Stoppable>(client: T): T;
  /** Stops the service now (a test of what happens while it is away); afterAll then has nothing to stop. */
  stopService(): Promise<void>;
  /** Starts the service again on the same configuration (after stopService). */
  restart(): Promise<RunningService>;
}

/**
 * The one way a test file starts the service: beforeAll builds a configuration of its own (topics, group,
 * Redis key prefix: testConfig) and starts the service, afterAll stops what the file tracked, then the
 * requester, then the service.
 */
export function useService(options: ServiceFixtureOptions = {}): ServiceFixture {
  let config: ServiceConfig | undefined;
  let service: RunningService | undefined;
  let requester: TestRequester | undefined;
  const tracked: Stoppable[] = [];
  const started = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw new Error(`the fixture's ${name} is read before beforeAll started it`);
    return value;
  };
  const start = (config: ServiceConfig) => startTestService(config, options.start, { log: options.log, awaitJoin: options.awaitJoin });
  beforeAll(async () => {
    config = testConfig(typeof options.env === 'function' ? await options.env() : options.env);
    await options.prepare?.(config);
    service = await start(config);
    if (options.requester) requester = await TestRequester.start(config, ...(typeof options.requester === 'function' ? [options.requester(config)] : []));
  });
  afterAll(async () => {
    for (const client of tracked.reverse()) await ('stop' in client ? client.stop() : client.close());
    await requester?.stop();
    await service?.stop();
  });
  return {
    get config() {
      return started(config, 'config');
    },
    get service() {
      return started(service, 'service');
    },
    get requester() {
      return started(requester, 'requester');
    },
    track(client) {
      tracked.push(client);
      return client;
    },
    async stopService() {
      const stopping = service;
      service = undefined;
      await stopping?.stop();
    },
    async restart() {
      service = await start(started(config, 'config'));
      return service;
    },
  };
}
