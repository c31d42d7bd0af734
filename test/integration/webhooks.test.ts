import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { BalanceComponents } from '../../src/app/balance';
import { startWebhookDispatcher, type RunningDispatcher } from '../../src/app/webhooks';
import { loadWebhookConfig } from '../../src/webhooks/config';
import { balanceComponentsOf, BalanceClient } from '../support/balance-client';
import { runWholesale } from '../support/cli';
import { envFor } from '../support/harness';
import { sampleSum, scrape } from '../support/prometheus';
import { createActiveSubscription, type TestSubscription } from '../support/subscriptions';
import { until } from '../support/until';
import { selfSignedCertificate, WebhookReceiver, type ReceivedWebhook } from '../support/webhook-receiver';
import { useService } from '../support/service-fixture';

/**
 * Webhooks end to end on the real stack: the service handles real commands and publishes the partners'
 * events; the dispatcher posts them over real HTTPS (a self-signed certificate it is told to trust) to two
 * partners' endpoints, registered with the real CLI. Retry periods are shortened by settings.
 */
const PARTNER_A = { id: '100000108464', brand: '100000108465' };
const PARTNER_B = { id: '200000000001', brand: '200000000002' };
/** How long the endpoint stays down: 3 s in CI; `WEBHOOK_TEST_OUTAGE_MS=60000` for the minute-long outage (docs/webhooks.md). */
const OUTAGE_MS = Number(process.env.WEBHOOK_TEST_OUTAGE_MS ?? 3000);
/** The retry period: past the outage, so the endpoint's return is met by a retry, not by a give-up. */
const MAX_RETRY_MS = Math.max(8000, OUTAGE_MS + 5000);

describe("webhooks: partners' events delivered as signed CloudEvents over HTTPS", () => {
  const certificate = selfSignedCertificate();
  const receivers = { [PARTNER_A.id]: new WebhookReceiver(certificate), [PARTNER_B.id]: new WebhookReceiver(certificate) };
  const secrets: Record<string, string[]> = {};
  let client: BalanceClient;
  let balance: BalanceComponents;
  let dispatcher: RunningDispatcher;
  let env: Record<string, string>;

  const startDispatcher = async () =>
    startWebhookDispatcher(
      loadWebhookConfig({
        ...process.env,
        ...env,
        WEBHOOK_CA_FILE: certificate.caFile,
        WEBHOOK_RETRY_INITIAL_MS: '100',
        WEBHOOK_RETRY_MAX_DELAY_MS: '800',
        WEBHOOK_MAX_RETRY_MS: String(MAX_RETRY_MS),
        WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_REFRESH_MS: '200',
        WEBHOOK_REDELIVERY_POLL_MS: '200',
        HTTP_PORT: '0',
        HTTP_HOST: '127.0.0.1',
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      }),
      (await import('pino')).default({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    );

  const cli = async (...args: string[]): Promise<any> => {
    const run = await runWholesale(['--json', 'admin', 'webhooks', ...args], { REDIS_URL: process.env.REDIS_URL!, REDIS_KEY_PREFIX: fx.config.redis.keyPrefix });
    if (run.code !== 0) throw new Error(`wholesale admin webhooks ${args.join(' ')}: exit ${run.code}: ${run.stderr}`);
    return JSON.parse(run.stdout.trim().split('\n').pop()!);
  };

  const subscriptions: Record<string, TestSubscription> = {};
  /** One real UpdateBalances of the partner's subscription: one BalancesUpdated event. Answers its correlation id. */
  const sendEvent = async (partner: { id: string; brand: string }): Promise<string> => {
    subscriptions[partner.id] ??= await createActiveSubscription(balance.subscriptions, { wholesaleCustomerId: partner.brand });
    const sub = subscriptions[partner.id];
    const correlationId = randomUUID();
    const action = { subBalanceInstId: `${sub.gpsi}-1`, balanceType: 'Main', subBalanceType: 'On-Net Voice', action: 'Subtract', quantity: 1, unitType: 'Min' };
    const reply = await client.send('UpdateBalances', { gpsi: sub.gpsi, balances: [action] }, sub.wholesaleCustomerId, correlationId);
    expect(reply.value.status).toBe('Success');
    return correlationId;
  };
  /** The partner's webhook lag as the ops endpoint reports it (undefined when there is no sample). */
  const lagOf = async (partnerId: string): Promise<number | undefined> =>
    (await scrape(dispatcher.opsPort)).find((s) => s.name === 'wholesale_webhook_lag' && s.labels.partner === partnerId)?.value;
  const correlationOf = (webhook: ReceivedWebhook): string => JSON.parse(webhook.body).data.correlationId;
  /** The distinct events accepted, in the order first accepted. */
  const acceptedIds = (partnerId: string): string[] => [...new Set(receivers[partnerId].accepted.map(correlationOf))];
  const waitForAccepted = (partnerId: string, ids: string[], timeoutMs = 30_000) =>
    until(`${ids.length} deliveries to ${partnerId}`, async () => (ids.every((id) => acceptedIds(partnerId).includes(id)) ? true : undefined), { timeoutMs });

  const fx = useService();

  beforeAll(async () => {
    env = { ...envFor(fx.config), KAFKA_BROKERS: process.env.KAFKA_BROKERS!, SCHEMA_REGISTRY_URL: process.env.SCHEMA_REGISTRY_URL!, REDIS_URL: process.env.REDIS_URL! };
    client = fx.track(await BalanceClient.start(fx.config));
    balance = balanceComponentsOf(fx.service, fx.config);
    for (const receiver of Object.values(receivers)) await receiver.start();
    for (const partnerId of [PARTNER_A.id, PARTNER_B.id]) {
      const registered = await cli('set', partnerId, '--url', receivers[partnerId].url);
      secrets[partnerId] = [registered.secrets[0].secret];
    }
    dispatcher = await startDispatcher();
    await until("both partners' dispatchers", async () => (dispatcher.dispatcher.partners.length === 2 ? true : undefined));
    await dispatcher.dispatcher.ready();
  });

  afterAll(async () => {
    await dispatcher?.stop();
    for (const receiver of Object.values(receivers)) await receiver.stop();
  });

  it('registration refuses plain http:// and shows the registration without its secret', async () => {
    const run = await runWholesale(['admin', 'webhooks', 'set', PARTNER_A.id, '--url', 'http://127.0.0.1:1/x'], {
      REDIS_URL: process.env.REDIS_URL!,
      REDIS_KEY_PREFIX: fx.config.redis.keyPrefix,
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/https/);
    const shown = await cli('show', PARTNER_A.id);
    expect(shown).toMatchObject({ format: 1, partnerId: PARTNER_A.id, url: receivers[PARTNER_A.id].url });
    expect(JSON.stringify(shown)).not.toContain(secrets[PARTNER_A.id][0]);
  });

  it("delivers a number's events in order as CloudEvents (structured mode), each verified by its signature", async () => {
    const sent: string[] = [];
    for (let i = 0; i < 5; i++) sent.push(await sendEvent(PARTNER_A));
    await waitForAccepted(PARTNER_A.id, sent);
    expect(acceptedIds(PARTNER_A.id).filter((id) => sent.includes(id))).toEqual(sent);
    for (const webhook of receivers[PARTNER_A.id].accepted.filter((w) => sent.includes(correlationOf(w)))) {
      expect(webhook.headers['content-type']).toBe('application/cloudevents+json');
      const event = new Webhook(secrets[PARTNER_A.id][0]).verify(webhook.body, webhook.headers) as Record<string, any>;
      expect(event).toMatchObject({
        specversion: '1.0',
        id: webhook.headers['webhook-id'],
        type: 'wholesale.balance.v1.BalancesUpdated',
        subject: subscriptions[PARTNER_A.id].gpsi,
        datacontenttype: 'application/json',
      });
      expect(event.data.gpsi).toBe(subscriptions[PARTNER_A.id].gpsi);
      expect(() => new Webhook(secrets[PARTNER_B.id][0]).verify(webhook.body, webhook.headers)).toThrow();
    }
  });

  it("delivers the balance operations' events (reserved, committed, released, expired, topped up, transferred, reversed, adjusted), each signed", async () => {
    const sub = await createActiveSubscription(balance.subscriptions, { wholesaleCustomerId: PARTNER_A.brand });
    const other = await createActiveSubscription(balance.subscriptions, { wholesaleCustomerId: PARTNER_A.brand });
    const data = (gpsi: string) => ({ subBalanceInstId: `${gpsi}-4`, subBalanceType: 'On-Net Data', unitType: 'MB' }); // WP-BASIC's 5 GB
    const send = async (operation: string, command: object) => expect((await client.send(operation, { gpsi: sub.gpsi, ...command }, sub.wholesaleCustomerId)).value.status).toBe('Success');
    const reserve = (reservationId: string, ttlSeconds = 600) => send('ReserveBalance', { reservationId, subBalanceInstId: data(sub.gpsi).subBalanceInstId, amount: 10, ttlSeconds });
    await reserve('committed');
    await send('CommitReservation', { reservationId: 'committed', usedAmount: 4 });
    await reserve('released');
    await send('ReleaseReservation', { reservationId: 'released' });
    await reserve('expiring', 1); // released by the expiry scheduler a second later
    await send('TopupBalance', { ...data(sub.gpsi), amount: 100, reference: randomUUID(), referenceType: 'PAYMENT' });
    await send('TransferBalance', { subBalanceInstId: data(sub.gpsi).subBalanceInstId, toGpsi: other.gpsi, toSubBalanceInstId: data(other.gpsi).subBalanceInstId, amount: 5 });
    // refused by the target (its voice sub-balance): CONFLICT, the amount given back, TransferReversed
    const refused = { gpsi: sub.gpsi, subBalanceInstId: data(sub.gpsi).subBalanceInstId, toGpsi: other.gpsi, toSubBalanceInstId: `${other.gpsi}-1`, amount: 3 };
    expect((await client.send('TransferBalance', refused, sub.wholesaleCustomerId)).value.error.code).toBe('CONFLICT');
    await send('AdjustBalance', { ...data(sub.gpsi), action: 'Credit', amount: 2, reasonCode: 'GOODWILL', note: 'sorry' });
    const expected = [
      'BalanceReserved',
      'ReservationCommitted',
      'BalanceReserved',
      'ReservationReleased',
      'BalanceReserved',
      'BalanceToppedUp',
      'BalanceTransferred',
      'TransferReversed',
      'BalanceAdjusted',
      'ReservationExpired',
    ].map((name) => `wholesale.balance.v1.${name}`);
    const received = () =>
      receivers[PARTNER_A.id].accepted
        .map((webhook) => ({ webhook, event: new Webhook(secrets[PARTNER_A.id][0]).verify(webhook.body, webhook.headers) as Record<string, any> }))
        .filter(({ event }) => event.subject === sub.gpsi && event.type !== 'wholesale.balance.v1.SubscriptionActivated');
    await until('the ten events of the operations', async () => (received().length >= expected.length ? true : undefined), { timeoutMs: 30_000 });
    // the number's events in the order they were published: the expiry last, a second after its reservation
    expect(received().map(({ event }) => event.type)).toEqual(expected);
    for (const { webhook, event } of received()) {
      expect(webhook.headers['content-type']).toBe('application/cloudevents+json');
      expect(event).toMatchObject({ specversion: '1.0', id: webhook.headers['webhook-id'], datacontenttype: 'application/json', data: { gpsi: sub.gpsi } });
    }
    const of = (name: string) => received().filter(({ event }) => event.type === `wholesale.balance.v1.${name}`)[0].event.data;
    expect(of('ReservationExpired')).toMatchObject({ reservationId: 'expiring', reservedAmount: 10 });
    expect(of('ReservationCommitted')).toMatchObject({ reservationId: 'committed', usedAmount: 4, chargedAmount: 4 });
    expect(of('BalanceTransferred')).toMatchObject({ toGpsi: other.gpsi, amount: 5 });
    expect(of('TransferReversed')).toMatchObject({ toGpsi: other.gpsi, amount: 3, reason: 'toSubBalanceInstId is On-Net Voice in Min, not On-Net Data in MB' });
    expect(of('BalanceAdjusted')).toMatchObject({ reasonCode: 'GOODWILL', note: 'sorry' });
    expect(of('BalanceToppedUp')).toMatchObject({ referenceType: 'PAYMENT' });
  });

  it(
    'an endpoint down for a while loses nothing: once back, it gets every event, in order',
    async () => {
      await receivers[PARTNER_A.id].stop();
      const sent: string[] = [];
      for (let i = 0; i < 3; i++) sent.push(await sendEvent(PARTNER_A));
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS)); // down for OUTAGE_MS, within the retry period
      expect(acceptedIds(PARTNER_A.id).filter((id) => sent.includes(id))).toEqual([]);
      expect(await lagOf(PARTNER_A.id)).toBeGreaterThanOrEqual(3); // not committed while undelivered
      await receivers[PARTNER_A.id].start();
      await waitForAccepted(PARTNER_A.id, sent);
      expect(acceptedIds(PARTNER_A.id).filter((id) => sent.includes(id))).toEqual(sent);
      await until("A's lag back to 0", async () => ((await lagOf(PARTNER_A.id)) === 0 ? true : undefined));
      expect(sampleSum(await scrape(dispatcher.opsPort), 'wholesale_webhook_retried_total', { partner: PARTNER_A.id })).toBeGreaterThan(0);
    },
    OUTAGE_MS + 60_000,
  );

  it(
    'a dead endpoint does not delay another partner; given up, its events go to dead letters and `redeliver` delivers them',
    async () => {
      const deadA = receivers[PARTNER_A.id];
      deadA.answer = () => 503;
      const toA = [await sendEvent(PARTNER_A), await sendEvent(PARTNER_A)];
      await until("A's endpoint refusing", async () => (deadA.received.some((r) => r.status === 503 && toA.includes(correlationOf(r))) ? true : undefined));
      const toB = [await sendEvent(PARTNER_B), await sendEvent(PARTNER_B)];
      await waitForAccepted(PARTNER_B.id, toB, MAX_RETRY_MS / 2);
      expect(acceptedIds(PARTNER_A.id).filter((id) => toA.includes(id))).toEqual([]); // A was still failing meanwhile

      const listed = await until(
        "A's two dead letters",
        async () => {
          const { deadLetters } = await cli('redeliver', PARTNER_A.id, '--list');
          return deadLetters.length >= 2 ? deadLetters : undefined;
        },
        { timeoutMs: 4 * MAX_RETRY_MS },
      );
      expect(listed).toHaveLength(2);
      expect(listed.map((l: { reason: string }) => l.reason)).toEqual(['HTTP 503', 'HTTP 503']);
      expect(sampleSum(await scrape(dispatcher.opsPort), 'wholesale_webhook_failed_total', { partner: PARTNER_A.id })).toBe(2);

      deadA.answer = () => 204;
      const { redelivered } = await cli('redeliver', PARTNER_A.id, '--from', listed[0].id, '--to', listed[1].id);
      expect(redelivered).toHaveLength(2);
      await waitForAccepted(PARTNER_A.id, toA);
      expect((await cli('redeliver', PARTNER_A.id, '--list')).deadLetters).toEqual([]);
    },
    4 * MAX_RETRY_MS + 30_000,
  );

  it('rotation: during the grace period each delivery carries both signatures, and each secret verifies it', async () => {
    const rotated = await cli('rotate', PARTNER_B.id, '--grace', '1h');
    const [fresh, previous] = rotated.secrets.map((s: { secret: string }) => s.secret);
    expect(previous).toBe(secrets[PARTNER_B.id][0]);
    await new Promise((resolve) => setTimeout(resolve, 600)); // the dispatcher reads registrations every 200 ms here
    const id = await sendEvent(PARTNER_B);
    await waitForAccepted(PARTNER_B.id, [id]);
    const webhook = receivers[PARTNER_B.id].accepted.find((w) => correlationOf(w) === id)!;
    expect(webhook.headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [fresh, previous]) expect(new Webhook(secret).verify(webhook.body, webhook.headers)).toMatchObject({ data: { correlationId: id } });
  });

  it('a dispatcher restart loses nothing; a delivery cut short is sent again with the same webhook-id', async () => {
    const receiver = receivers[PARTNER_A.id];
    let release: (() => void) | undefined;
    receiver.answer = () => new Promise<number>((resolve) => (release = () => resolve(204)));
    const first = await sendEvent(PARTNER_A);
    await until('a delivery in flight', async () => (release ? true : undefined), { timeoutMs: 10_000 });
    await dispatcher.stop(); // the held delivery is abandoned uncommitted
    release!();
    receiver.answer = () => 204;
    const whileDown = [await sendEvent(PARTNER_A), await sendEvent(PARTNER_A)];
    dispatcher = await startDispatcher();
    await waitForAccepted(PARTNER_A.id, [first, ...whileDown]);
    expect(acceptedIds(PARTNER_A.id).slice(-3)).toEqual([first, ...whileDown]);
    const byEvent = new Map<string, Set<string>>();
    for (const webhook of receiver.received) byEvent.set(correlationOf(webhook), (byEvent.get(correlationOf(webhook)) ?? new Set()).add(webhook.headers['webhook-id']));
    for (const ids of byEvent.values()) expect(ids.size).toBe(1); // duplicates only as the same event id
    expect(sampleSum(await scrape(dispatcher.opsPort), 'wholesale_webhook_delivered_total', { partner: PARTNER_A.id })).toBeGreaterThanOrEqual(3);
  });
});
