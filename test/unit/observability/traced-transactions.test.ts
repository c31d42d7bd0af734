import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { tracedTransactions } from '../../../src/adapters/kafka/traced-sender';
import type { Outbound, OutputUnit, TransactionalOutputs } from '../../../src/contract/transport';
import { startTracing, type Tracing } from '../../../src/observability/tracing-sdk';

const SETTINGS = { exporter: 'none' as const, headers: {}, serviceName: 'unit', samplerRatio: 1 };
const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const message = (topic: string): Outbound => ({ topic, key: topic, value: Buffer.from(topic), headers: { traceparent } });

// The exactly-once door may refuse messages twice for one unit: before the transaction (no partition, too large
// for the topic) and after the broker refused a message in it. Each refusal must end its message's span in error.
describe('publish spans around the exactly-once door', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  beforeAll(() => (tracing = startTracing(SETTINGS, { exporter })));
  afterAll(() => tracing.shutdown());

  it('ends in error the span of every message refused, in each refusal of the unit, and the others as sent', async () => {
    const door: TransactionalOutputs = {
      async send(unit) {
        const [tooLarge, refusedByBroker] = unit.messages;
        unit.replaceRefused([{ message: tooLarge, reason: 'larger than the topic takes' }]);
        unit.replaceRefused([{ message: refusedByBroker, reason: 'TOPIC_AUTHORIZATION_FAILED' }]);
      },
      preparing: () => () => undefined,
      close: async () => undefined,
    };
    const given: Outbound[] = [];
    const unit: OutputUnit = {
      messages: [message('too-large'), message('refused-by-broker'), message('sent')],
      replaceRefused: (refused) => (given.push(...refused.map(({ message }) => message)), []),
    };
    await tracedTransactions(door).send(unit);

    const statusOf = (topic: string) => exporter.getFinishedSpans().find((span) => span.name === `${topic} publish`)?.status;
    expect(statusOf('too-large')).toMatchObject({ code: 2, message: 'larger than the topic takes' });
    expect(statusOf('refused-by-broker')).toMatchObject({ code: 2, message: 'TOPIC_AUTHORIZATION_FAILED' });
    expect(statusOf('sent')).toMatchObject({ code: 0 });
    // the unit is told of the messages it gave, not of their traced copies
    expect(given).toEqual([unit.messages[0], unit.messages[1]]);
  });
});
