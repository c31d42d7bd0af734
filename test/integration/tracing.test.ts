import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { WholesaleClient, type ContractEvent, type EventSubscription } from '../../src/client';
import { examplePortInOrder } from '../../dev/demo/journey';
import { startTracing, type Tracing } from '../../src/observability/tracing-sdk';
import { clientConfigFor, eventually, gpsiEndingIn, startTestSimulator } from '../support/client';
import { useService } from '../support/service-fixture';

/**
 * One port-in journey, traced with the SDK's in-memory exporter over the real stack: the client's send,
 * the command's processing, its Redis scripts, the reply and the NP request, the NP side's responses and
 * their processing, and the activation events are ONE trace, each span under the one that caused it.
 */
const exporter = new InMemorySpanExporter();
let tracing: Tracing;
beforeAll(async () => {
  tracing = startTracing({ exporter: 'none', headers: {}, serviceName: 'tracing-test', samplerRatio: 1 }, { exporter });
});
afterAll(async () => {
  await tracing?.shutdown();
});

// Both delivery modes: with exactly-once outputs the sends are spans too, ended when their transaction commits.
describe.each(['at-least-once', 'exactly-once'])('OpenTelemetry: a port-in journey is one trace (%s)', (delivery) => {
  let client: WholesaleClient;
  let events: EventSubscription;
  const seen: ContractEvent[] = [];

  const fx = useService({ env: { KAFKA_DELIVERY: delivery } });

  beforeAll(async () => {
    fx.track(await startTestSimulator(fx.config));
    client = fx.track(await WholesaleClient.connect({ config: clientConfigFor(fx.config), wholesaleCustomerId: 'WC-TRACE' }));
    events = client.subscribeEvents({ onEvent: (event) => void seen.push(event) });
    await events.ready;
  });

  const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
  const named = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);

  it('client send → command → Redis → reply and NP request → NP responses → activation events', async () => {
    exporter.reset(); // the other mode's journey: its root span is named the same
    const gpsi = gpsiEndingIn('42');
    const created = await client.createPortIn(examplePortInOrder(gpsi));
    expect(created).toMatchObject({ status: 'Success', portStatus: 'OPEN' });
    await eventually('SubscriptionActivated', () => seen.find((e) => e.known && e.recordName === 'wholesale.balance.v1.SubscriptionActivated' && e.value.gpsi === gpsi));

    const root = exporter.getFinishedSpans().find((s) => s.name === 'send createPortIn');
    expect(root).toBeDefined();
    expect(root!.kind).toBe(SpanKind.PRODUCER);
    expect(parentOf(root!)).toBeUndefined();
    const { traceId } = root!.spanContext();
    const { topics } = fx.config;
    // the activation event's publish is the journey's last span: wait for it to end
    const trace = await eventually('the activation events in the trace', () => {
      const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
      return named(spans, `${topics.balanceEvents} publish`).length > 0 ? spans : undefined;
    });
    const byId = new Map(trace.map((s) => [s.spanContext().spanId, s]));
    const parentName = (span: ReadableSpan) => byId.get(parentOf(span) ?? '')?.name;

    const [command] = named(trace, `${topics.portinCommands} process`);
    expect(command).toMatchObject({ kind: SpanKind.CONSUMER });
    expect(parentOf(command)).toBe(root!.spanContext().spanId);
    expect(command.attributes).toMatchObject({ 'wholesale.operation': 'CreatePortIn', 'wholesale.outcome': 'Success' });

    const [handle] = named(trace, 'handle CreatePortIn');
    expect(parentOf(handle)).toBe(command.spanContext().spanId);
    const redis = trace.filter((s) => s.name.startsWith('redis '));
    expect(redis.length).toBeGreaterThan(0);
    expect(redis.filter((s) => parentOf(s) === handle.spanContext().spanId).length).toBeGreaterThan(0);
    expect(redis.every((s) => s.kind === SpanKind.CLIENT && s.attributes['db.system.name'] === 'redis')).toBe(true);

    const publishes = trace.filter((s) => s.kind === SpanKind.PRODUCER && parentOf(s) === command.spanContext().spanId).map((s) => s.name);
    expect(publishes).toEqual(expect.arrayContaining([`${topics.npRequests} publish`, `${topics.portinReplies} publish`, `${topics.portinEvents} publish`]));

    // The NP side answers under the request's publish span; each answer's processing under the answer.
    const [npRequest] = named(trace, `${topics.npRequests} publish`);
    const answers = named(trace, `${topics.npResponses} publish`);
    expect(answers.length).toBeGreaterThanOrEqual(2); // PortConfirmed, ActivationComplete (and OrderIdAssigned)
    expect(answers.every((s) => parentOf(s) === npRequest.spanContext().spanId)).toBe(true);
    const handled = named(trace, `${topics.npResponses} process`);
    expect(handled.map(parentName).every((name) => name === `${topics.npResponses} publish`)).toBe(true);

    // The activation: a PortInActivationEvent COMPLETED and SubscriptionActivated, under an NP response's processing.
    const activation = named(trace, `${topics.balanceEvents} publish`);
    expect(activation.map(parentName)).toEqual(activation.map(() => `${topics.npResponses} process`));
    expect(named(trace, `${topics.portinEvents} publish`).map(parentName)).toContain(`${topics.npResponses} process`);
    expect(trace.filter((s) => s.status.code === SpanStatusCode.ERROR)).toEqual([]); // no span ended in error
  });
});
