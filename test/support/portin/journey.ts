import { randomUUID } from 'node:crypto';
import { type ServiceConfig } from '../../../src/app/config';
import { loadNpSimulatorConfig } from '../../../dev/np-simulator/config';
import type { RunningService } from '../../../src/app/service';
import { startNpSimulator, type NpSimulator } from '../../../dev/np-simulator/np-simulator';
import { HEADER } from '../../../src/contract/headers';
import { envFor, startTestService, testConfig, testLogger, TestRequester, TopicReader, type Reply, type TokenProvider } from '../harness';

/**
 * A port-in journey over the real stack: the service, the NP simulator (time-scaled), a requester and a
 * reader of the port-in events topic. Numbers are random per test, with the last digits chosen to pick a
 * simulator rule.
 */
export const PORTIN = (name: string) => `wholesale.portin.v1.${name}`;

/** A random 11-digit number ending in `suffix` (two digits that pick the simulator's rule). */
export const gpsiEndingIn = (suffix: string): string => `1${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}${suffix}`;

export const createCommand = (gpsi: string, overrides: Record<string, unknown> = {}) => ({
  partnerTransactionId: `PTX-${randomUUID().slice(0, 12)}`,
  subscriberId: 'SUB-1',
  wholesalePlanId: 'WP-BASIC',
  bucketRefId: ['2000001'],
  eSIMDeliveryMethod: 'QR',
  billCycleStartDay: 5,
  gpsi,
  portInfo: {
    authorizationName: 'Ada Lovelace',
    accountNo: '123456789012',
    pwdPin: '4321',
    termsCondition: 'ACCEPTED',
    contact: { isBusinessType: false, firstName: 'Ada', lastName: 'Lovelace' },
    location: { portAddress: { addressLine1: '1 Main St', city: 'Springfield', state: 'IL', zip: '62701' } },
  },
  ...overrides,
});

export class PortInJourneys {
  private constructor(
    readonly config: ServiceConfig,
    readonly service: RunningService,
    readonly requester: TestRequester,
    private readonly simulator: NpSimulator,
    private readonly reader: TopicReader,
    /** Every PortInActivationEvent read so far, in topic order per partition. */
    readonly events: Reply[],
  ) {}

  /** `tokenProvider`: every command carries a bearer token (AUTH_MODE=jwt tests); `clock`: the service's and the simulator's. */
  static async start(overrides: Record<string, string> = {}, options: { tokenProvider?: TokenProvider; clock?: () => Date } = {}): Promise<PortInJourneys> {
    const config = testConfig(overrides);
    const service = await startTestService(config, { clock: options.clock });
    const simulator = await startNpSimulator(
      loadNpSimulatorConfig({ ...process.env, ...envFor(config), NP_SIM_GROUP_ID: `np-sim-${randomUUID().slice(0, 8)}`, NP_SIM_TIME_SCALE: overrides.NP_SIM_TIME_SCALE ?? '100000' }),
      { log: testLogger(config), clock: options.clock },
    );
    await simulator.joined;
    const requester = await TestRequester.start(config, undefined, options);
    const events: Reply[] = [];
    const reader = await TopicReader.start(config, [config.topics.portinEvents], (event) => events.push(event));
    return new PortInJourneys(config, service, requester, simulator, reader, events);
  }

  async stop(): Promise<void> {
    await this.reader?.stop();
    await this.requester?.stop();
    await this.simulator?.stop();
    await this.service?.stop();
  }

  /** Sends a port-in command for a wholesale customer (default WC-1) and awaits its reply; `token` overrides the requester's. */
  send(operation: string, value: object, customer: string | null = 'WC-1', correlationId?: string, token?: string | null): Promise<Reply> {
    const headers: Record<string, string> = customer === null ? {} : { [HEADER.wholesaleCustomerId]: customer };
    const key = (value as { gpsi?: string; partnerTransactionId?: string }).gpsi ?? (value as { partnerTransactionId?: string }).partnerTransactionId;
    return this.requester.send('portinCommands', PORTIN(operation), value, { headers, key, correlationId, token });
  }

  eventsFor(gpsi: string): Reply[] {
    return this.events.filter((e) => e.key === gpsi);
  }

  /** Waits until the number's events include one with this status (and version), then returns them all. */
  async waitForStatus(gpsi: string, portStatus: string, portOrderVersion = '1', timeoutMs = 30000): Promise<Reply[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const events = this.eventsFor(gpsi);
      if (events.some((e) => e.value.portStatus === portStatus && e.value.portOrderVersion === portOrderVersion)) return events;
      if (Date.now() > deadline) {
        throw new Error(`no ${portStatus} v${portOrderVersion} event for ${gpsi}; saw ${events.map((e) => `${e.value.portStatus}/v${e.value.portOrderVersion}`).join(', ') || 'none'}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Waits until a query by gpsi answers the given field value (for changes that publish no event, e.g. the order id). */
  async waitForRecord(gpsi: string, accept: (record: Record<string, unknown>) => boolean, timeoutMs = 30000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const reply = await this.send('QueryPortIn', { gpsi });
      if (reply.value.status === 'Success' && accept(reply.value)) return reply.value;
      if (Date.now() > deadline) throw new Error(`the record of ${gpsi} never matched: ${JSON.stringify(reply.value)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export const statuses = (events: Reply[]): string[] => events.map((e) => `${e.value.portStatus}/v${e.value.portOrderVersion}`);

/**
 * The real clock, moved back to Friday on a weekend: with PORTIN_DUE_INTERVAL_BUSINESS_DAYS=0 a due date is
 * then now, not Monday, so deadlines counted from it come within a test's time.
 */
export function weekdayClock(): () => Date {
  const day = new Date().getUTCDay();
  const offsetMs = (day === 6 ? 1 : day === 0 ? 2 : 0) * 24 * 3600 * 1000;
  return () => new Date(Date.now() - offsetMs);
}
