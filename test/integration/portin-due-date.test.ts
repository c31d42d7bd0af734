import { randomUUID } from 'node:crypto';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { AvroCodec } from '../../src/adapters/registry/avro-codec';
import { loadSchemas, type AvroRecordSchema } from '../../src/adapters/registry/schemas';
import { addBusinessDays } from '../../src/domain/portin/due-date';
import { HEADER } from '../../src/contract/headers';
import { PORTIN, createCommand, gpsiEndingIn, statuses } from '../support/portin/journey';
import { journeyWithNpSide } from '../support/portin/np-side';

/**
 * Issue 15 item 3 over the real stack: a due date the partner asks for (the peers' foc_datetime_requested /
 * target_port_in_date) on CreatePortIn and UpdatePortIn, checked against the earliest allowed business
 * day, sent to the NP side; a supplement that changes only the due date. The field is optional in the
 * schemas (BACKWARD): a partner still on the previous schema versions, registered before the service's,
 * keeps being served.
 */
const withoutDueDate = (name: string): AvroRecordSchema => {
  const current = loadSchemas().get(PORTIN(name))!;
  return { ...current, fields: current.fields.filter((f) => (f as { name: string }).name !== 'desiredDueDate') };
};
/** A business day `days` business days from now, at 15:00 UTC: always later than the earliest allowed. */
const businessDay = (days: number): string => {
  const day = addBusinessDays(new Date(), days);
  day.setUTCHours(15, 0, 0, 0);
  return day.toISOString();
};

/**
 * Now, or on a Saturday or Sunday the last weekday before it: a business day, and always earlier than the
 * earliest allowed (now itself, on a weekend, would be refused as a weekend day instead).
 */
const businessDayNotLater = (): string => {
  const day = new Date();
  while (day.getUTCDay() === 0 || day.getUTCDay() === 6) day.setUTCDate(day.getUTCDate() - 1);
  return day.toISOString();
};

describe('partner-requested due dates (real stack)', () => {
  // the command topic is known before the service starts, so the previous schema versions come first
  const commandTopic = `wholesale.portin.commands.v1.due-${randomUUID().slice(0, 8)}`;
  const previous: Record<string, number> = {};
  beforeAll(async () => {
    const codec = new AvroCodec(process.env.SCHEMA_REGISTRY_URL!);
    for (const name of ['CreatePortIn', 'UpdatePortIn']) previous[name] = await codec.register(commandTopic, withoutDueDate(name), PORTIN(name));
  });
  const stack = journeyWithNpSide({ TOPIC_PORTIN_COMMANDS: commandTopic });

  it('CreatePortIn with a desired due date: answered with it, sent to the NP side with it, confirmed for it', async () => {
    const gpsi = gpsiEndingIn('15'); // confirmed, and never activated: the confirmation stays to be read
    const desiredDueDate = businessDay(3);
    const reply = await stack.j.send('CreatePortIn', createCommand(gpsi, { desiredDueDate }));
    expect(reply.value).toMatchObject({ status: 'Success', portStatus: 'OPEN', desiredDueDate });
    expect((await stack.np.request(gpsi)).value).toMatchObject({ desiredDueDate, portOrderVersion: 1 });
    await stack.j.waitForStatus(gpsi, 'CONFIRMED');
    expect((await stack.j.send('QueryPortIn', { gpsi })).value).toMatchObject({ desiredDueDate, confirmedDueDate: desiredDueDate });
  });

  it('a due date too early or on a weekend is a BAD_REQUEST listed with the other problems; nothing is created', async () => {
    const gpsi = gpsiEndingIn('21');
    const tooEarly = await stack.j.send('CreatePortIn', createCommand(gpsi, { desiredDueDate: businessDayNotLater(), billCycleStartDay: 29 }));
    expect(tooEarly.headers[HEADER.status]).toBe('BAD_REQUEST');
    expect(tooEarly.value.error.problems.map((p: { path: string }) => p.path).sort()).toEqual(['billCycleStartDay', 'desiredDueDate']);
    expect(tooEarly.value.error.problems.find((p: { path: string }) => p.path === 'desiredDueDate').reason).toMatch(/^must be no earlier than /);
    const saturday = new Date(businessDay(6));
    saturday.setUTCDate(saturday.getUTCDate() + ((6 - saturday.getUTCDay() + 7) % 7));
    const weekend = await stack.j.send('CreatePortIn', createCommand(gpsi, { desiredDueDate: saturday.toISOString() }));
    expect(weekend.value.error.problems).toEqual([{ path: 'desiredDueDate', reason: 'must fall on a business day (Monday to Friday, UTC)' }]);
    expect((await stack.j.send('QueryPortIn', { gpsi })).headers[HEADER.status]).toBe('NOT_FOUND');
  });

  it('a supplement changing only the due date moves a CONFIRMED port to OPEN at the next version; the NP side confirms the new date', async () => {
    const gpsi = gpsiEndingIn('15');
    const command = createCommand(gpsi);
    await stack.j.send('CreatePortIn', command);
    await stack.j.waitForStatus(gpsi, 'CONFIRMED');
    const desiredDueDate = businessDay(5);
    const update = await stack.j.send('UpdatePortIn', { partnerTransactionId: command.partnerTransactionId, gpsi, updatePortInfo: {}, desiredDueDate });
    expect(update.value).toMatchObject({ status: 'Success', portStatus: 'OPEN', portOrderVersion: '2', desiredDueDate });
    const supplement = await stack.np.request(gpsi, 'np.portin.v1.SupplementPortRequest');
    // the same port information (secrets included: the old provider checks them), only the date is new
    expect(supplement.value).toMatchObject({ portOrderVersion: 2, desiredDueDate, portInfo: { pwdPin: '4321', accountNo: '123456789012', authorizationName: 'Ada Lovelace' } });
    const events = await stack.j.waitForStatus(gpsi, 'CONFIRMED', '2');
    expect(statuses(events)).toEqual(['OPEN/v1', 'CONFIRMED/v1', 'OPEN/v2', 'CONFIRMED/v2']);
    expect((await stack.j.send('QueryPortIn', { gpsi })).value).toMatchObject({ portOrderVersion: '2', confirmedDueDate: desiredDueDate });
    // an update changing nothing at all is still refused
    const empty = await stack.j.send('UpdatePortIn', { partnerTransactionId: command.partnerTransactionId, gpsi, updatePortInfo: {} });
    expect(empty.value.error.problems).toEqual([{ path: 'updatePortInfo', reason: 'must change at least one member, or desiredDueDate must be given' }]);
  });

  it('a partner on the previous schema versions (no desiredDueDate) is served: the earliest due date', async () => {
    const registry = new SchemaRegistry({ host: stack.j.config.schemaRegistryUrl });
    const sendPrevious = async (name: string, value: object) => {
      const correlationId = randomUUID();
      const reply = stack.j.requester.awaitReply(correlationId);
      await stack.j.requester.sendRaw(commandTopic, {
        key: (value as { gpsi: string }).gpsi,
        value: await registry.encode(previous[name], value),
        headers: { [HEADER.correlationId]: correlationId, [HEADER.wholesaleCustomerId]: 'WC-1' },
      });
      return reply;
    };
    const gpsi = gpsiEndingIn('00');
    const command = createCommand(gpsi);
    const created = await sendPrevious('CreatePortIn', command);
    expect(created.value).toMatchObject({ status: 'Success', portStatus: 'OPEN', desiredDueDate: expect.any(String) });
    expect(Date.parse(created.value.desiredDueDate)).toBeGreaterThan(Date.now());
    // decoded and judged like any other (the lifecycle refuses it in OPEN), not dead-lettered
    const update = await sendPrevious('UpdatePortIn', { partnerTransactionId: command.partnerTransactionId, gpsi, updatePortInfo: { pwdPin: '2468' } });
    expect([update.headers[HEADER.status], update.value.error.problems]).toEqual(['CONFLICT', [{ path: 'portStatus', reason: 'is OPEN' }]]);
  });
});
