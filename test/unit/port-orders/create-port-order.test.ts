import { decodePortOrder, encodePortOrder, PORT_ORDER_FORMAT, type PortOrder } from '../../../src/domain/port-orders/order';
import { createCreatePortOrder } from '../../../src/handlers/port-orders/create-port-order';
import { createQueryPortOrder } from '../../../src/handlers/port-orders/query-port-order';
import type { PortOrderStore } from '../../../src/handlers/port-orders/ports';
import { rawCreate, T0 } from '../../support/portin/fixtures';
import { context, portInKit } from '../../support/portin/handler-kit';

/** Port orders kept as the Redis adapter keeps them: encoded text, created once, replaced by version. */
class MemoryPortOrders implements PortOrderStore {
  readonly texts = new Map<string, string>();
  async read(owner: string, orderId: string) {
    const text = this.texts.get(`${owner}|${orderId}`);
    return text ? decodePortOrder(text) : undefined;
  }
  async create(order: PortOrder) {
    const key = `${order.owner}|${order.orderId}`;
    if (!this.texts.has(key)) this.texts.set(key, encodePortOrder(order));
    return decodePortOrder(this.texts.get(key)!);
  }
  async update(order: PortOrder, expectedVersion: number) {
    const stored = await this.read(order.owner, order.orderId);
    if (stored?.version !== expectedVersion) return false;
    this.texts.set(`${order.owner}|${order.orderId}`, encodePortOrder(order));
    return true;
  }
  readonly members = new Map<string, string>();
  readonly settled = new Map<string, Set<string>>();
  async indexMembers(order: PortOrder) {
    for (const n of order.numbers) if (!n.refusal) this.members.set(`${order.owner}|${n.partnerTransactionId}`, order.orderId);
  }
  async orderOf(owner: string, partnerTransactionId: string) {
    return this.members.get(`${owner}|${partnerTransactionId}`);
  }
  async markSettled(order: PortOrder, partnerTransactionId: string) {
    const set = this.settled.get(order.orderId) ?? new Set<string>();
    this.settled.set(order.orderId, set.add(partnerTransactionId));
    return set.size;
  }
}

const { partnerTransactionId: _pti, gpsi: _gpsi, iccid: _iccid, pei: _pei, eid: _eid, ...shared } = rawCreate();
void [_pti, _gpsi, _iccid, _pei, _eid];
const NUMBERS = Array.from({ length: 40 }, (_, i) => String(19459986000 + i * 7));
const order = { ...shared, orderId: 'ORD-1', numbers: NUMBERS.map((gpsi) => ({ gpsi })) };

describe('CreatePortOrder, a worker dying mid-order', () => {
  it('resumes on the rerun: every number created once, none lost, the order CREATED with each port-in', async () => {
    const { deps: portin, store } = portInKit();
    const orders = new MemoryPortOrders();
    const write = store.write.bind(store);
    let writesBeforeCrash = 15;
    store.write = async (...args) => {
      if (writesBeforeCrash-- <= 0) throw new Error('worker killed');
      return write(...args);
    };
    const handle = createCreatePortOrder({ orders, portin, concurrency: 4 });
    const first = context({ now: T0 });
    await expect(handle(order, first)).rejects.toThrow('worker killed');
    expect((await orders.read('WC-1', 'ORD-1'))?.state).toBe('CREATING');
    expect(store.requests.size).toBeGreaterThanOrEqual(15);
    expect(store.requests.size).toBeLessThan(40);

    // queried meanwhile: the numbers written are found by their partnerTransactionId, the others CREATING
    const query = createQueryPortOrder({ orders, portin, concurrency: 4 });
    const meanwhile = (await query({ orderId: 'ORD-1' }, context({ now: T0 }))).reply;
    expect(meanwhile).toMatchObject({ orderStatus: 'IN_PROGRESS', statusCounts: { OPEN: store.requests.size, CREATING: 40 - store.requests.size } });

    store.write = write;
    const redelivered = await handle(order, { ...first });
    expect(redelivered.reply).toMatchObject({ createdCount: 40, refusedCount: 0, orderStatus: 'IN_PROGRESS' });
    expect(store.requests.size).toBe(40);
    expect([...store.history.values()].every((h) => h.size === 0)).toBe(true);
    expect(redelivered.messages?.filter((m) => m.recordName === 'np.portin.v1.SubmitPortRequest').map((m) => m.key)).toEqual(NUMBERS);
    const stored = await orders.read('WC-1', 'ORD-1');
    expect(stored).toMatchObject({ state: 'CREATED', version: 2 });
    expect(stored?.numbers.map((n) => n.requestId)).toEqual(NUMBERS.map((gpsi) => store.requests.get(gpsi)?.requestId));

    // a retry under another correlation id: the same order answered, nothing published again
    const retried = await handle(order, context({ now: T0 }));
    expect(retried.reply).toEqual(redelivered.reply);
    expect(retried.messages).toEqual([]);
  });

  it('reads its own stored format and refuses a newer one', () => {
    const text = encodePortOrder({ orderId: 'O', owner: 'WC-1', fingerprint: 'f', correlationId: 'c', commandId: 'x', createdAt: T0.toISOString(), version: 1, state: 'CREATING', numbers: [] });
    expect(JSON.parse(text).v).toBe(PORT_ORDER_FORMAT);
    expect(decodePortOrder(text).orderId).toBe('O');
    expect(() => decodePortOrder(text.replace(`"v":${PORT_ORDER_FORMAT}`, `"v":${PORT_ORDER_FORMAT + 1}`))).toThrow(/newer than this worker reads/);
  });
});
