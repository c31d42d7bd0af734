import { randomUUID } from 'node:crypto';
import { AvroCodec } from '../../../src/adapters/registry/avro-codec';
import { NP_RESPONSE_RECORDS } from '../../../src/domain/portin/records';
import { TopicReader, type Reply } from '../harness';
import { until } from '../until';
import { PortInJourneys } from './journey';

/**
 * The NP side played by hand in a journey: reads what the service sends on np.portin.requests.v1 and
 * produces chosen responses on np.portin.responses.v1, in any order the test needs (the simulator only
 * answers in order). Numbers ending in 00 get nothing from the simulator but their order id, so the test's
 * responses are the only others.
 */
export class NpSide {
  private constructor(
    private readonly j: PortInJourneys,
    private readonly reader: TopicReader,
    /** Every NP request read so far, and every record on the billing events topic. */
    readonly seen: Reply[],
    private readonly codec: AvroCodec,
  ) {}

  static async start(j: PortInJourneys): Promise<NpSide> {
    const seen: Reply[] = [];
    const reader = await TopicReader.start(j.config, [j.config.topics.npRequests, j.config.topics.balanceEvents], (r) => seen.push(r));
    return new NpSide(j, reader, seen, new AvroCodec(j.config.schemaRegistryUrl));
  }

  stop(): Promise<void> {
    return this.reader.stop();
  }

  /** The first record named `recordName` (full name) keyed by `gpsi` that matches, once it came. */
  find(gpsi: string, recordName: string, matches: (value: Record<string, any>) => boolean = () => true): Promise<Reply> {
    return until(`${recordName} for ${gpsi}`, async () => this.seen.find((r) => r.key === gpsi && r.recordName === recordName && matches(r.value)), { timeoutMs: 15000, intervalMs: 50 });
  }

  /** The NP request the service sent for the number's port (SubmitPortRequest unless named). */
  request(gpsi: string, recordName = 'np.portin.v1.SubmitPortRequest'): Promise<Reply> {
    return this.find(gpsi, recordName);
  }

  /** Sends one NP response answering `request` (its requestId, gpsi and version unless `fields` say otherwise). */
  async respond(trigger: keyof typeof NP_RESPONSE_RECORDS, request: Reply, fields: Record<string, unknown> = {}): Promise<void> {
    const value = {
      responseId: `test-${randomUUID()}`,
      requestId: request.value.requestId,
      gpsi: request.value.gpsi,
      portOrderVersion: request.value.portOrderVersion,
      portOrderId: null,
      sentAt: new Date().toISOString(),
      ...fields,
    };
    const topic = this.j.config.topics.npResponses;
    await this.j.requester.sendRaw(topic, { key: request.value.gpsi, value: await this.codec.encode(topic, NP_RESPONSE_RECORDS[trigger], value) });
  }
}

/**
 * A journey and its hand-played NP side for the describe block this is called in: started before its tests,
 * stopped after them. Read `j` and `np` inside the tests (they are set once beforeAll ran).
 */
export function journeyWithNpSide(overrides: Record<string, string> = {}, options: Parameters<typeof PortInJourneys.start>[1] = {}): { j: PortInJourneys; np: NpSide } {
  const held = {} as { j: PortInJourneys; np: NpSide };
  beforeAll(async () => {
    held.j = await PortInJourneys.start(overrides, options);
    held.np = await NpSide.start(held.j);
  });
  afterAll(async () => {
    await held.np?.stop();
    await held.j?.stop();
  });
  return held;
}
