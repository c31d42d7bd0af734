import { Type } from 'avsc';
import { loadSchemas } from '../../../src/adapters/registry/schemas';
import { TOPIC_RECORDS } from '../../../src/adapters/registry/topology';
import { fromHash, toHash } from '../../../src/adapters/redis/portin-codec';
import { NP_RESPONSE_RECORDS, PORTIN_TOPOLOGY } from '../../../src/domain/portin/records';
import { portInRecordView } from '../../../src/domain/portin/request';
import { plan } from '../../../dev/np-simulator/rules';
import { createCreatePortIn } from '../../../src/handlers/portin/create-port-in';
import { createCancelPortIn } from '../../../src/handlers/portin/cancel-port-in';
import { createUpdatePortIn } from '../../../src/handlers/portin/update-port-in';
import type { OutgoingMessage } from '../../../src/contract/messages';
import { rawCreate, requestIn } from '../../support/portin/fixtures';
import { context, portInKit } from '../../support/portin/handler-kit';

/** What the port-in code builds must encode with the schemas in schemas/, field for field. */
const schemas = loadSchemas();
const typeOf = (name: string) => Type.forSchema(schemas.get(name) as never);

function expectValid(recordName: string, value: unknown): void {
  const problems: string[] = [];
  typeOf(recordName).isValid(value, { errorHook: (path, v) => problems.push(`${path.join('.')} = ${JSON.stringify(v)}`) });
  expect({ recordName, problems }).toEqual({ recordName, problems: [] });
}

describe('port-in Avro contract', () => {
  it('has a schema for every port-in and NP record of the topology, and the topology lists them', () => {
    for (const names of Object.values(PORTIN_TOPOLOGY)) for (const name of names) expect(schemas.has(name)).toBe(true);
    expect(TOPIC_RECORDS.npResponses).toEqual(PORTIN_TOPOLOGY.npResponses);
    expect(TOPIC_RECORDS.portinCommands).toEqual(PORTIN_TOPOLOGY.portinCommands);
  });

  it('decodes a CreatePortIn without businessName or activationAddress (create does not take them)', () => {
    const type = typeOf('wholesale.portin.v1.CreatePortIn');
    const decoded = type.fromBuffer(type.toBuffer(rawCreate()));
    expect(decoded.portInfo.contact.businessName).toBeUndefined();
    expect(decoded.gpsi).toBe('19459986891');
  });

  it('encodes every reply and message of a journey: create, supplement, cancel', async () => {
    const { deps, store } = portInKit();
    const created = await createCreatePortIn(deps)(rawCreate(), context());
    expectValid('wholesale.portin.v1.CreatePortInReply', created.reply);
    const messages: OutgoingMessage[] = [...created.messages!];
    store.requests.set('19459986891', { ...store.requests.get('19459986891')!, portStatus: 'REJECTED', portOrderId: 'PO-1' });
    const updated = await createUpdatePortIn(deps)({ partnerTransactionId: 'PTX-1', gpsi: '19459986891', updatePortInfo: { contact: { businessName: 'ACME' } } }, context());
    expectValid('wholesale.portin.v1.UpdatePortInReply', updated.reply);
    messages.push(...updated.messages!);
    store.requests.set('19459986891', { ...store.requests.get('19459986891')!, portStatus: 'REJECTED' });
    const cancelled = await createCancelPortIn(deps)({ gpsi: '19459986891' }, context());
    expectValid('wholesale.portin.v1.CancelPortInReply', cancelled.reply);
    messages.push(...cancelled.messages!.filter((m) => m.topic !== 'balanceEvents'));
    expect(messages.map((m) => m.recordName.split('.').pop())).toEqual([
      'PortInActivationEvent',
      'SubmitPortRequest',
      'PortInActivationEvent',
      'SupplementPortRequest',
      'PortInActivationEvent',
      'CancelPortRequest',
    ]);
    for (const message of messages) expectValid(message.recordName, message.value);
  });

  it('encodes the query reply of a request in any shape', () => {
    expectValid('wholesale.portin.v1.QueryPortInReply', { status: 'Success', ...portInRecordView(requestIn('OPEN')) });
    expectValid('wholesale.portin.v1.QueryPortInReply', { status: 'Success', ...portInRecordView(requestIn('CANCELLED', { portInfo: {}, portOrderId: undefined })) });
  });

  it('encodes every response the simulator sends', () => {
    const request = { recordName: 'np.portin.v1.SubmitPortRequest', requestId: 'r', gpsi: '19459986814', portOrderVersion: 1, desiredDueDate: '2026-03-05T10:00:00.000Z' };
    const cancel = { ...request, recordName: 'np.portin.v1.CancelPortRequest', sentAt: '2026-03-04T11:00:00.000Z' };
    const sent = [
      ...plan(request, new Date('2026-03-04T10:00:00Z')),
      ...plan({ ...request, gpsi: '19459986813' }, new Date()),
      ...plan({ ...request, portInfo: { pwdPin: '0000' } }, new Date()),
      ...plan(cancel, new Date()),
      ...plan({ ...cancel, gpsi: '19459986816' }, new Date()),
    ];
    expect(new Set(sent.map((r) => r.recordName))).toEqual(new Set(Object.values(NP_RESPONSE_RECORDS)));
    for (const response of sent) expectValid(response.recordName, { ...response.value, sentAt: '2026-03-04T10:00:00.000Z' });
  });
});

describe('port-in request codec (Redis hash)', () => {
  it('round-trips a request, absent optional fields deleted rather than written', () => {
    const request = requestIn('RESOLUTION_REQUIRED', { reasonCode: '8C', reasonDescription: 'PIN', confirmedDueDate: undefined });
    const { fields, absent } = toHash(request);
    expect(absent).toEqual(expect.arrayContaining(['confirmedDueDate', 'oldNetworkServiceProvider']));
    expect(Object.values(fields).every((v) => typeof v === 'string')).toBe(true);
    expect(fromHash(fields)).toEqual(JSON.parse(JSON.stringify(request)));
  });

  it('refuses a hash that is not a request', () => {
    expect(() => fromHash({ requestId: 'x' })).toThrow(/unreadable/);
    expect(() => fromHash({ ...toHash(requestIn('OPEN')).fields, portStatus: 'WEIRD' })).toThrow(/portStatus WEIRD/);
  });
});
