import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WholesaleClient, type ContractEvent } from '../../src/client';
import { EXIT } from '../../src/cli/exit-codes';
import { envFor, startTestService, testConfig } from '../support/harness';
import { clientConfigFor, eventually, gpsiEndingIn, startTestSimulator } from '../support/client';
import { runWholesale } from '../support/cli';
import { examplePortInOrder } from '../../dev/demo/journey';
import { useService } from '../support/service-fixture';

const CUSTOMER = 'WC-CLI';

describe('wholesale CLI as a child process against the real stack', () => {
  let watcher: WholesaleClient;
  const seen: ContractEvent[] = [];
  let env: Record<string, string>;
  let dir: string;

  const cli = (...args: string[]) => runWholesale(args, env);
  const json = (stdout: string) => JSON.parse(stdout.trim());

  const fx = useService();

  beforeAll(async () => {
    fx.track(await startTestSimulator(fx.config));
    env = { ...envFor(fx.config), WHOLESALE_CUSTOMER_ID: CUSTOMER, LOG_LEVEL: 'error' };
    watcher = fx.track(await WholesaleClient.connect({ config: clientConfigFor(fx.config) }));
    await watcher.subscribeEvents({ onEvent: (event) => void seen.push(event) }).ready;
    dir = mkdtempSync(join(tmpdir(), 'wholesale-cli-'));
  });

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
  });

  const file = (name: string, value: unknown): string => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(value));
    return path;
  };
  const portStatusSeen = (gpsi: string, status: string) =>
    eventually(`${status} of ${gpsi}`, () =>
      seen.find((e) => e.recordName === 'wholesale.portin.v1.PortInActivationEvent' && e.key === gpsi && (e.value as { portStatus?: string })?.portStatus === status),
    );
  const order = (gpsi: string, pwdPin = '4321') => examplePortInOrder(gpsi, { pwdPin });

  it('checks eligibility: pretty output by default, one JSON line with --json, exit 0', async () => {
    const pretty = await cli('portin', 'eligibility', '--gpsi', gpsiEndingIn('42'));
    expect(pretty.stderr).toBe('');
    expect(pretty.code).toBe(EXIT.SUCCESS);
    expect(pretty.stdout).toMatch(/^checkPortInEligibility {2}\(X-Correlation-Id [0-9a-f-]{36}\)\n {2}status: Success\n {2}eligibilityStatus: Eligible\n/);
    const machine = await cli('--json', '--correlation-id', 'TQA20210903155950999', 'portin', 'eligibility', '--gpsi', gpsiEndingIn('42'));
    expect(machine.code).toBe(EXIT.SUCCESS);
    expect(json(machine.stdout)).toMatchObject({ status: 'Success', eligibilityStatus: 'Eligible', reasonCode: null });
  });

  it('prints the error code and every field problem of an error reply, and exits 3', async () => {
    const run = await cli('portin', 'eligibility', '--gpsi', '12ab');
    expect(run.code).toBe(EXIT.SERVICE_ERROR);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('error BAD_REQUEST: ');
    expect(run.stderr).toContain('  gpsi: must be at least 11 characters\n');
    expect(run.stderr).toContain('  gpsi: must match 11 to 15 digits\n');
    const machine = await cli('--json', 'balance', 'query', '--gpsi', gpsiEndingIn('42'));
    expect(machine.code).toBe(EXIT.SERVICE_ERROR);
    expect(json(machine.stderr).error.code).toEqual(expect.any(String));
  });

  it('exits 2, sending nothing, for a command that does not fit its schema or for bad flags', async () => {
    const missing = await cli('balance', 'add-buckets', '--bucket', '2000002');
    expect(missing.code).toBe(EXIT.USAGE);
    expect(missing.stderr).toContain('error INVALID_COMMAND');
    expect(missing.stderr).toContain('  gpsi: missing, or not of the type the schema gives');
    expect((await cli('balance', 'history', '--gpsi', '19459986891', '--limit', 'lots')).code).toBe(EXIT.USAGE);
    expect((await cli('portin', 'create', '--file', join(dir, 'nothing-here.json'))).code).toBe(EXIT.USAGE);
    const noBrokers = await runWholesale(['portin', 'eligibility', '--gpsi', '19459986891'], { ...env, KAFKA_BROKERS: '' });
    expect(noBrokers.code).toBe(EXIT.USAGE);
    expect(noBrokers.stderr).toContain('KAFKA_BROKERS');
  });

  it('runs a whole port-in and the balance operations from the command line', async () => {
    const gpsi = gpsiEndingIn('42');
    const create = order(gpsi);
    const created = await cli('--json', 'portin', 'create', '--file', file('order.json', create));
    expect(created.code).toBe(EXIT.SUCCESS);
    expect(json(created.stdout)).toMatchObject({ status: 'Success', gpsi, portStatus: 'OPEN' });
    await portStatusSeen(gpsi, 'COMPLETED');

    const tail = await cli('--json', 'events', 'tail', '--from-beginning', '--topic', 'portin', '--gpsi', gpsi, '--max', '3');
    expect(tail.code).toBe(EXIT.SUCCESS);
    const tailed = tail.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(tailed.map((e) => e.value.portStatus)).toEqual(['OPEN', 'CONFIRMED', 'COMPLETED']);
    expect(tailed[0].cloudEvent).toMatchObject({ specversion: '1.0', type: 'wholesale.portin.v1.PortInActivationEvent', subject: gpsi });

    const queried = json((await cli('--json', 'portin', 'query', '--gpsi', gpsi)).stdout);
    expect(queried).toMatchObject({ portStatus: 'COMPLETED', partnerTransactionId: create.partnerTransactionId });
    expect(json((await cli('--json', 'portin', 'query', '--partner-transaction-id', create.partnerTransactionId)).stdout).gpsi).toBe(gpsi);
    expect(json((await cli('--json', 'portin', 'query', '--port-order-id', queried.portOrderId)).stdout).gpsi).toBe(gpsi);

    const added = await cli('--json', 'balance', 'add-buckets', '--gpsi', gpsi, '--bucket', '2000002');
    expect(added.code).toBe(EXIT.SUCCESS);
    const swapped = json((await cli('--json', 'balance', 'swap-primary', '--gpsi', gpsi, '--bucket', '1000002')).stdout);
    const data = swapped.balances[0].subBalances.find((s: { bucketRefId: string; subBalanceType: string }) => s.bucketRefId === '1000002' && s.subBalanceType === 'On-Net Data');
    const update = { balances: [{ subBalanceInstId: data.subBalanceInstId, subBalanceType: 'On-Net Data', unitType: 'MB', action: 'Subtract', quantity: 250 }] };
    const updated = await cli('--json', 'balance', 'update', '--gpsi', gpsi, '--file', file('update.json', update));
    expect(updated.code).toBe(EXIT.SUCCESS);
    const cancelled = await cli('--json', 'balance', 'cancel-buckets', '--gpsi', gpsi, '--bucket', '2000002');
    expect(cancelled.code).toBe(EXIT.SUCCESS);
    const balances = json((await cli('--json', 'balance', 'query', '--gpsi', gpsi)).stdout);
    const rows = balances.balances[0].subBalances as { subBalanceInstId: string; remainingBalance: number; bucketRefId: string }[];
    expect(rows.find((s) => s.subBalanceInstId === data.subBalanceInstId)?.remainingBalance).toBe(data.remainingBalance - 250);
    expect(rows.map((s) => s.bucketRefId)).not.toContain('2000002');
    const table = await cli('balance', 'query', '--gpsi', gpsi);
    expect(table.code).toBe(EXIT.SUCCESS);
    expect(table.stdout).toMatch(
      / {4}subBalanceInstId +subBalanceType +remainingBalance +allocatedBalance +rollOverBalance +totalBalance +unitType +bucketRefId +purchasedBalance +validFor\.startDateTime +validFor\.endDateTime +purchasedValidUntil +reservedBalance +availableBalance\n/,
    );
    expect(table.stdout).toContain(`${data.subBalanceInstId} `);
    const history = json((await cli('--json', 'balance', 'history', '--gpsi', gpsi, '--limit', '2')).stdout);
    expect(history.entries).toHaveLength(2);
  });

  it('updates a port-in needing resolution from a file on standard input, and cancels another', async () => {
    const gpsi = gpsiEndingIn('42');
    const first = order(gpsi, '0000');
    expect((await cli('portin', 'create', '--file', file('first.json', first))).code).toBe(EXIT.SUCCESS);
    await portStatusSeen(gpsi, 'RESOLUTION_REQUIRED');
    const update = { partnerTransactionId: first.partnerTransactionId, gpsi, updatePortInfo: { pwdPin: '2468' } };
    const updated = await runWholesale(['--json', 'portin', 'update', '--file', '-'], env, { input: JSON.stringify(update) });
    expect(updated.code).toBe(EXIT.SUCCESS);
    expect(json(updated.stdout).status).toBe('Success');

    const other = gpsiEndingIn('42');
    const second = order(other, '0000');
    await cli('portin', 'create', '--file', file('second.json', second));
    await portStatusSeen(other, 'RESOLUTION_REQUIRED');
    const cancelled = await cli('--json', 'portin', 'cancel', '--partner-transaction-id', second.partnerTransactionId, '--gpsi', other);
    expect(cancelled.code).toBe(EXIT.SUCCESS);
    expect(json(cancelled.stdout)).toMatchObject({ status: 'Success', portStatus: 'CANCELLED' });
  });

  it('answers --help on every level', async () => {
    for (const args of [['--help'], ['portin', '--help'], ['balance', 'swap-primary', '--help'], ['events', 'tail', '--help']]) {
      const run = await cli(...args);
      expect(run.code).toBe(EXIT.SUCCESS);
      expect(run.stdout).toContain('Usage: wholesale');
    }
  });
});

describe('wholesale CLI when the service is stopped', () => {
  it('exits 4 with a TIMEOUT error', async () => {
    const config = testConfig();
    const service = await startTestService(config);
    await service.stop();
    const run = await runWholesale(['--timeout', '1000', 'portin', 'eligibility', '--gpsi', gpsiEndingIn('42')], { ...envFor(config), LOG_LEVEL: 'error' });
    expect(run.code).toBe(EXIT.TIMEOUT);
    expect(run.stderr).toContain('error TIMEOUT: no reply within 1000 ms');
  });
});
