import pino from 'pino';
import type { OutgoingMessage } from '../../../src/contract/messages';
import type { BalanceOutcome } from '../../../src/domain/balance/outcome';
import type { SubBalanceChange } from '../../../src/domain/balance/model';
import type { PendingTransfer, TransferStore, TransferSweepStore } from '../../../src/handlers/balance-operations/ports';
import { createTransferSweeper } from '../../../src/schedulers/transfer-sweeper';

/**
 * The pending-transfer sweeper over in-memory stores: which claimed transfers it finishes, what it publishes
 * and when, and what it leaves due after a failure.
 */
type State = 'pending' | 'completed' | 'reversed' | undefined;

const change = (kind: 'Add' | 'Subtract', id: string): SubBalanceChange => ({
  change: kind,
  subBalanceInstId: id,
  bucketRefId: '1000001',
  subBalanceType: 'On-Net Data',
  unitType: 'MB',
  quantity: 5000,
  before: { remaining: 10_000, allocated: 10_000, rollover: 0, purchased: 0 },
  after: { remaining: kind === 'Add' ? 15_000 : 5000, allocated: 10_000, rollover: 0, purchased: 0 },
});

function rig(states: Record<string, State>, options: { targetRefuses?: boolean; publishFails?: boolean } = {}) {
  const steps: string[] = [];
  const published: OutgoingMessage[] = [];
  const due = new Map<string, PendingTransfer>();
  const forgotten: string[] = [];
  for (const id of Object.keys(states)) {
    due.set(id, {
      meta: { gpsi: '15550000001', commandId: id, wholesaleCustomerId: 'WC-1', correlationId: `c-${id}`, operation: 'TransferBalance' },
      order: { subBalanceInstId: '15550000001-4', toGpsi: '15550000002', toSubBalanceInstId: '15550000002-4', amount: 5000 },
    });
  }
  const store: TransferSweepStore = {
    now: async () => 1_000_000,
    claimDue: async () => [...due].map(([entry, transfer]) => ({ entry, transfer })),
    state: async (_gpsi, id) => states[id],
    forget: async (entry) => {
      due.delete(entry);
      forgotten.push(entry);
    },
  };
  const debitOutcome = (id: string): BalanceOutcome => ({
    at: '2026-12-02T08:00:00.000Z',
    correlationId: `c-${id}`,
    causeId: id,
    subscription: {
      gpsi: '15550000001',
      subscriptionId: 'S-1',
      subscriberId: 'U-1',
      wholesaleCustomerId: 'WC-1',
      wholesalePlanId: 'WP-BASIC',
      billCycleFrequency: 'MONTHLY',
      billCycleStartDay: 1,
      billCycleTimeZone: 'UTC',
      status: 'ACTIVE',
    },
    changes: [change('Subtract', '15550000001-4')],
    balances: [],
    replayed: true,
  });
  const transfers: TransferStore = {
    note: async (meta) => void steps.push(`note ${meta.commandId}`),
    unnote: async (meta) => void steps.push(`unnote ${meta.commandId}`),
    debit: async (meta) => (steps.push(`debit ${meta.commandId}`), debitOutcome(meta.commandId)),
    credit: async (meta) => {
      steps.push(`credit ${meta.commandId}`);
      return options.targetRefuses ? { credited: false, reason: 'no such sub-balance' } : { credited: true, change: change('Add', '15550000002-4') };
    },
    settle: async (meta, credited) => {
      steps.push(`settle ${meta.commandId} ${credited}`);
      states[meta.commandId] = credited ? 'completed' : 'reversed';
      return credited ? { state: 'completed' } : { state: 'reversed', reversal: change('Add', '15550000001-4') };
    },
  };
  const sweeper = createTransferSweeper({
    store,
    transfers,
    publish: async (messages) => {
      steps.push(`publish ${messages.map((m) => m.recordName).join(',')}`);
      if (options.publishFails) throw new Error('Kafka away');
      published.push(...messages);
    },
    log: pino({ level: 'silent' }),
    settings: { pollIntervalMs: 10, batchSize: 10, leaseMs: 1000 },
  });
  return { sweeper, steps, published, forgotten, due };
}

describe('the pending-transfer sweeper', () => {
  it('finishes a pending transfer without noting it again: credit, the event published, then the settlement; then forgets it', async () => {
    const { sweeper, steps, published, forgotten } = rig({ t1: 'pending' });
    expect(await sweeper.tick()).toBe(1);
    expect(steps).toEqual(['debit t1', 'credit t1', 'publish wholesale.balance.v1.BalanceTransferred', 'settle t1 true']);
    expect(published.map((m) => m.value)).toEqual([expect.objectContaining({ transferId: 't1', toGpsi: '15550000002', amount: 5 })]);
    expect(forgotten).toEqual(['t1']);
    expect(await sweeper.tick()).toBe(0);
  });

  it('reverses a pending transfer the target refuses, then publishes TransferReversed with the debit and its reversal', async () => {
    const { sweeper, steps, published, forgotten } = rig({ t1: 'pending' }, { targetRefuses: true });
    expect(await sweeper.tick()).toBe(1);
    expect(steps).toEqual(['debit t1', 'credit t1', 'settle t1 false', 'publish wholesale.balance.v1.TransferReversed']);
    expect(published.map((m) => m.value)).toEqual([
      expect.objectContaining({
        transferId: 't1',
        toGpsi: '15550000002',
        amount: 5,
        reason: 'no such sub-balance',
        changes: [expect.objectContaining({ change: 'Subtract', subBalanceInstId: '15550000001-4' }), expect.objectContaining({ change: 'Add', subBalanceInstId: '15550000001-4' })],
      }),
    ]);
    expect(forgotten).toEqual(['t1']);
  });

  it('only forgets a transfer already completed or whose debit never ran', async () => {
    const { sweeper, steps, forgotten } = rig({ settled: 'completed', never: undefined });
    expect(await sweeper.tick()).toBe(0);
    expect(steps).toEqual([]);
    expect(forgotten.sort()).toEqual(['never', 'settled']);
  });

  it('publishes a reversed transfer still noted again (its event may not have gone out), then forgets it', async () => {
    const { sweeper, steps, published, forgotten } = rig({ undone: 'reversed' }, { targetRefuses: true });
    expect(await sweeper.tick()).toBe(0);
    expect(steps).toEqual(['debit undone', 'credit undone', 'settle undone false', 'publish wholesale.balance.v1.TransferReversed']);
    expect(published.map((m) => m.cloudEvent?.id)).toHaveLength(1);
    expect(forgotten).toEqual(['undone']);
  });

  it('leaves a reversed transfer due when its event cannot be published, so a later tick publishes it', async () => {
    const { sweeper, forgotten, due } = rig({ t1: 'pending' }, { targetRefuses: true, publishFails: true });
    expect(await sweeper.tick()).toBe(0);
    expect(forgotten).toEqual([]);
    expect([...due.keys()]).toEqual(['t1']);
  });

  it('leaves the transfer pending and due when the event cannot be published, so a later tick publishes it', async () => {
    const { sweeper, steps, forgotten, due } = rig({ t1: 'pending' }, { publishFails: true });
    expect(await sweeper.tick()).toBe(0);
    expect(steps).toEqual(['debit t1', 'credit t1', 'publish wholesale.balance.v1.BalanceTransferred']);
    expect(forgotten).toEqual([]);
    expect([...due.keys()]).toEqual(['t1']);
  });
});
