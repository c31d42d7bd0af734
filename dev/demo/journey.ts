import { sleep } from '../../src/shared/retry';
import { randomUUID } from 'node:crypto';
import { ServiceReplyError } from '../../src/client/errors';
import type { ContractEvent } from '../../src/client/events';
import type { WholesaleClient } from '../../src/client/wholesale-client';
import type { SubBalance } from '../../src/contract/types.generated';
import { formatError, prettyLines } from '../../src/cli/output';

/**
 * The scripted journey of `npm run demo`, for a newcomer to watch: eligibility, a port-in the NP
 * simulator confirms and completes (its PortInActivationEvents printed as they arrive), the subscription
 * it activates, then buckets and balances, and last a port-in the old provider never answers, cancelled
 * while the NP side works on it, and a port order of several numbers, one of them refused. Every step
 * prints what it sends and what it gets back.
 */
export interface DemoOptions {
  client: Pick<
    WholesaleClient,
    | 'checkPortInEligibility'
    | 'createPortIn'
    | 'cancelPortIn'
    | 'queryPortIn'
    | 'queryBalances'
    | 'addBuckets'
    | 'swapPrimaryBucket'
    | 'updateBalances'
    | 'queryBalanceHistory'
    | 'subscribeEvents'
    | 'createPortOrder'
    | 'queryPortOrder'
  >;
  print: (line: string) => void;
  /** How long to wait for the NP simulator to complete the port. */
  waitMs: number;
  /** The number to port in; default a random one the simulator confirms (ending in 42). */
  gpsi?: string;
}

/** A complete CreatePortIn order for `gpsi` (plan WP-BASIC with the add-on 2000001): the demo's, and a template for tests. */
export function examplePortInOrder(gpsi: string, portInfo: { pwdPin?: string } = {}) {
  return {
    partnerTransactionId: `PTX-${randomUUID().slice(0, 8)}`,
    subscriberId: `SUB-${randomUUID().slice(0, 8)}`,
    wholesalePlanId: 'WP-BASIC',
    bucketRefId: ['2000001'],
    eSIMDeliveryMethod: 'QR',
    gpsi,
    portInfo: {
      authorizationName: 'Ada Lovelace',
      accountNo: '123456789012',
      pwdPin: portInfo.pwdPin ?? '4321',
      termsCondition: 'ACCEPTED',
      contact: { isBusinessType: false, firstName: 'Ada', lastName: 'Lovelace' },
      location: { portAddress: { addressLine1: '1 Main St', city: 'Springfield', state: 'IL', zip: '62701' } },
    },
  };
}

/** A random number whose last two digits pick the simulator's rule (42: confirmed and completed; 00: never answered). */
const randomGpsi = (suffix = '42'): string => `1${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}${suffix}`;
const allSubBalances = (balances: { subBalances: SubBalance[] }[]): SubBalance[] => balances.flatMap((b) => b.subBalances);

/** Resolves with the number it ported in. */
export async function runDemoJourney(options: DemoOptions): Promise<string> {
  const { client, print } = options;
  const gpsi = options.gpsi ?? randomGpsi();
  const unanswered = randomGpsi('00');
  const orderId = `ORD-${randomUUID().slice(0, 8)}`;
  let step = 0;
  const heading = (title: string) => print(`\n── ${++step}. ${title} ${'─'.repeat(Math.max(3, 70 - title.length))}`);
  const show = (label: string, value: unknown) => print([label, ...prettyLines(JSON.parse(JSON.stringify(value)), '     ')].join('\n'));
  const request = async <T>(operation: string, input: object, call: () => Promise<T>): Promise<T> => {
    print(`  → ${operation} ${JSON.stringify(input)}`);
    const started = Date.now();
    const reply = await call();
    show(`  ← reply in ${Date.now() - started} ms:`, reply);
    return reply;
  };

  const events: ContractEvent[] = [];
  const subscription = client.subscribeEvents({
    onEvent: (event) => {
      if (event.key !== gpsi && event.key !== unanswered && event.key !== orderId) return;
      events.push(event);
      const summary =
        event.known && event.recordName === 'wholesale.portin.v1.PortOrderEvent'
          ? `${event.value.eventType}: ${event.value.createdCount} created, ${event.value.refusedCount} refused`
          : event.known && event.recordName === 'wholesale.portin.v1.PortInActivationEvent'
            ? `portStatus ${event.value.previousPortStatus ?? '(new)'} → ${event.value.portStatus}${event.value.reasonCode ? ` (${event.value.reasonCode} ${event.value.reasonDescription})` : ''}${event.value.remarks ? ` remarks: ${event.value.remarks}` : ''}`
            : `${(event.value as { changes?: unknown[] } | null)?.changes?.length ?? 0} sub-balance change(s)`;
      print(`  ⚡ event ${event.recordName.split('.').pop()} [${event.cloudEvent.time ?? '-'}] ${event.key === gpsi ? '' : `${event.key} `}${summary}`);
    },
  });
  await subscription.ready;
  const waitFor = async (what: string, found: () => ContractEvent | undefined): Promise<ContractEvent> => {
    const deadline = Date.now() + options.waitMs;
    for (;;) {
      const event = found();
      if (event) return event;
      if (Date.now() > deadline) throw new Error(`no ${what} within ${options.waitMs / 1000} s: is the NP simulator running (npm run dev starts it)?`);
      await sleep(100);
    }
  };
  const portStatus =
    (status: string, number = gpsi) =>
    () =>
      events.find((e) => e.key === number && e.known && e.recordName === 'wholesale.portin.v1.PortInActivationEvent' && e.value.portStatus === status);

  try {
    heading(`Is ${gpsi} eligible for port-in?`);
    await request('CheckPortInEligibility', { gpsi }, () => client.checkPortInEligibility({ gpsi }));

    heading('A malformed number: the service lists every problem at once');
    try {
      await client.checkPortInEligibility({ gpsi: '12ab' });
    } catch (error) {
      if (!(error instanceof ServiceReplyError)) throw error;
      print(`  → CheckPortInEligibility {"gpsi":"12ab"}\n  ← ${formatError({ code: error.code, message: error.serviceMessage, problems: error.problems }, false).replace(/\n/g, '\n    ')}`);
    }

    heading('Create the port-in: plan WP-BASIC with the add-on bucket 2000001');
    const order = examplePortInOrder(gpsi);
    await request('CreatePortIn', order, () => client.createPortIn(order));

    heading('The NP simulator answers: PortInActivationEvents until the port completes');
    print(`  (waiting up to ${options.waitMs / 1000} s)`);
    await waitFor('COMPLETED PortInActivationEvent', portStatus('COMPLETED'));
    await waitFor('SubscriptionActivated billing event', () => events.find((e) => e.recordName === 'wholesale.balance.v1.SubscriptionActivated'));

    heading('Query the port-in by its partner transaction id');
    const { partnerTransactionId } = order;
    await request('QueryPortIn', { partnerTransactionId }, () => client.queryPortIn({ partnerTransactionId }));

    heading('The balances the plan and the add-on gave');
    await request('QueryBalances', { gpsi }, () => client.queryBalances({ gpsi }));

    heading('Add the 5 GB monthly data bucket 2000002');
    await request('AddBuckets', { gpsi, bucketRefId: ['2000002'] }, () => client.addBuckets({ gpsi, bucketRefId: ['2000002'] }));

    heading('Swap the primary bucket to Unlimited 50GB (1000002)');
    const swapped = await request('SwapPrimaryBucket', { gpsi, bucketRefId: '1000002' }, () => client.swapPrimaryBucket({ gpsi, bucketRefId: '1000002' }));

    heading('Use 512 MB of data and add 10 minutes of voice, all or nothing');
    const subBalances = allSubBalances(swapped.balances);
    const data = subBalances.find((s) => s.bucketRefId === '1000002' && s.subBalanceType === 'On-Net Data');
    const voice = subBalances.find((s) => s.bucketRefId === '1000002' && s.subBalanceType === 'On-Net Voice');
    if (!data || !voice) throw new Error('the new primary bucket has no data or voice sub-balance');
    const update = {
      gpsi,
      balances: [
        { subBalanceInstId: data.subBalanceInstId, balanceType: 'Main', subBalanceType: data.subBalanceType, unitType: data.unitType, action: 'Subtract', quantity: 512 },
        { subBalanceInstId: voice.subBalanceInstId, balanceType: 'Main', subBalanceType: voice.subBalanceType, unitType: voice.unitType, action: 'Add', quantity: 10 },
      ],
    };
    await request('UpdateBalances', update, () => client.updateBalances(update));

    heading('Query the balances again');
    await request('QueryBalances', { gpsi }, () => client.queryBalances({ gpsi }));

    heading('The balance ledger, newest first');
    await request('QueryBalanceHistory', { gpsi, limit: 3 }, () => client.queryBalanceHistory({ gpsi, limit: 3 }));

    await waitFor('BalancesUpdated billing event', () => events.find((e) => e.recordName === 'wholesale.balance.v1.BalancesUpdated'));

    heading(`A port-in the old provider never answers (${unanswered}): cancel it while the NP side works on it`);
    const stuck = examplePortInOrder(unanswered);
    await request('CreatePortIn', stuck, () => client.createPortIn(stuck));
    const cancel = { partnerTransactionId: stuck.partnerTransactionId, gpsi: unanswered };
    await request('CancelPortIn', cancel, () => client.cancelPortIn(cancel));
    print('  (CANCEL_PENDING until the NP side answers the cancel)');
    await waitFor('CANCELLED PortInActivationEvent', portStatus('CANCELLED', unanswered));

    heading(`A port order: four new numbers and ${gpsi}, already ours (refused; the others go on)`);
    const { partnerTransactionId: _ptx, gpsi: _gpsi, ...shared } = examplePortInOrder(gpsi);
    void [_ptx, _gpsi];
    const portOrder = { ...shared, orderId, numbers: [randomGpsi(), randomGpsi(), randomGpsi(), randomGpsi(), gpsi].map((number) => ({ gpsi: number })) };
    await request('CreatePortOrder', portOrder, () => client.createPortOrder(portOrder));
    print("  (each number its own port-in; the order's status is derived from its numbers')");
    for (const deadline = Date.now() + options.waitMs; (await client.queryPortOrder({ orderId })).orderStatus === 'IN_PROGRESS'; await sleep(250)) {
      if (Date.now() > deadline) throw new Error(`port order ${orderId} still IN_PROGRESS after ${options.waitMs / 1000} s: is the NP simulator running?`);
    }
    await request('QueryPortOrder', { orderId }, () => client.queryPortOrder({ orderId }));

    const seen = events.filter((e) => e.key === gpsi).length;
    print(`\nDone: ${seen} events seen for ${gpsi}. Try: npx wholesale balance query --gpsi ${gpsi}`);
    return gpsi;
  } finally {
    await subscription.close();
  }
}
