import { loadClientConfig, type ClientConfig } from '../../../src/client/config';
import { ClientClosedError, RequestTimeoutError, ServiceReplyError } from '../../../src/client/errors';
import type { ContractEvent, SubscribeEventsOptions } from '../../../src/client/events';
import type { CallOptions } from '../../../src/client/wholesale-client';
import { runCli, type CliClient } from '../../../src/cli/program';
import { EXIT } from '../../../src/cli/exit-codes';
import type { CliIo } from '../../../src/cli/io';
import { prettyLines } from '../../../src/cli/output';

/** The CLI's parsing, body building, output and exit codes, against an in-memory client (no Kafka). */
interface Call {
  operation: string;
  input: Record<string, unknown>;
  options?: CallOptions;
}

function harness(answer: (call: Call) => Promise<object> = async () => ({ status: 'Success' }), files: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const calls: Call[] = [];
  const configs: ClientConfig[] = [];
  let closed = 0;
  let interrupt: () => void = () => undefined;
  let eventsHandler: ((event: ContractEvent) => void | Promise<void>) | undefined;
  let subscribed: SubscribeEventsOptions | undefined;
  const io: CliIo = {
    stdout: (t) => void out.push(t),
    stderr: (t) => void err.push(t),
    readFile: async (path) => {
      if (!(path in files)) throw new Error(`ENOENT: no such file, open '${path}'`);
      return files[path];
    },
    onInterrupt: (handler) => {
      interrupt = handler;
      return () => undefined;
    },
  };
  const client: CliClient = {
    call: (operation, input, options) => {
      calls.push({ operation, input, options });
      return answer({ operation, input, options });
    },
    subscribeEvents: (options) => {
      subscribed = options;
      eventsHandler = options.onEvent;
      return { ready: Promise.resolve(), close: async () => undefined };
    },
    close: async () => void closed++,
  };
  const env = { KAFKA_BROKERS: '127.0.0.1:9', SCHEMA_REGISTRY_URL: 'http://127.0.0.1:8081' };
  const run = (...argv: string[]) =>
    runCli(argv, {
      io,
      loadConfig: (overrides) => loadClientConfig(overrides, env),
      connect: async (config) => {
        configs.push(config);
        return client;
      },
    });
  return {
    run,
    out,
    err,
    calls,
    configs,
    closed: () => closed,
    interrupt: () => interrupt(),
    emit: (event: ContractEvent) => eventsHandler?.(event),
    subscribed: () => subscribed,
  };
}

describe('wholesale CLI', () => {
  it('sends the flags as the command body, prints the reply and exits 0', async () => {
    const cli = harness(async () => ({ status: 'Success', eligibilityStatus: 'Eligible', reasonCode: null }));
    expect(await cli.run('portin', 'eligibility', '--gpsi', '19459986891')).toBe(EXIT.SUCCESS);
    expect(cli.calls).toEqual([{ operation: 'checkPortInEligibility', input: { gpsi: '19459986891' }, options: { correlationId: expect.any(String) } }]);
    expect(cli.out.join('\n')).toContain('eligibilityStatus: Eligible');
    expect(cli.out.join('\n')).toContain('reasonCode: -');
    expect(cli.closed()).toBe(1);
  });

  it('prints one JSON line with --json and uses the given correlation id', async () => {
    const cli = harness(async () => ({ status: 'Success', balances: [{ balanceType: 'Main', subBalances: [] }] }));
    expect(await cli.run('--json', '--correlation-id', 'TQA-1', 'balance', 'query', '--gpsi', '19459986891')).toBe(EXIT.SUCCESS);
    expect(JSON.parse(cli.out[0])).toEqual({ status: 'Success', balances: [{ balanceType: 'Main', subBalances: [] }] });
    expect(cli.calls[0]?.options?.correlationId).toBe('TQA-1');
    await cli.run('--token', 'jwt-1', '--customer', 'WC-9', 'balance', 'query', '--gpsi', '19459986891');
    expect(cli.configs[1]).toMatchObject({ token: 'jwt-1', wholesaleCustomerId: 'WC-9' });
  });

  it('builds the body from --file, then --data, then field flags', async () => {
    const cli = harness(undefined, { 'order.json': JSON.stringify({ gpsi: '11111111111', partnerTransactionId: 'A', subscriberId: 'S' }) });
    await cli.run('portin', 'create', '--file', 'order.json', '--data', '{"subscriberId":"T"}', '--partner-transaction-id', 'B');
    expect(cli.calls[0]?.input).toEqual({ gpsi: '11111111111', partnerTransactionId: 'B', subscriberId: 'T' });
  });

  it('collects repeated and comma-separated --bucket values into bucketRefId, and a single one for swap-primary', async () => {
    const cli = harness();
    await cli.run('balance', 'add-buckets', '--gpsi', '19459986891', '--bucket', '2000001,2000002', '--bucket', '2000003');
    await cli.run('balance', 'swap-primary', '--gpsi', '19459986891', '--bucket', '1000002');
    await cli.run('balance', 'history', '--gpsi', '19459986891', '--limit', '5');
    expect(cli.calls.map((c) => c.input)).toEqual([
      { gpsi: '19459986891', bucketRefId: ['2000001', '2000002', '2000003'] },
      { gpsi: '19459986891', bucketRefId: '1000002' },
      { gpsi: '19459986891', limit: 5 },
    ]);
  });

  it('builds a port order from its file and repeated or comma-separated --number flags, and a list to check', async () => {
    const cli = harness(undefined, { 'order.json': JSON.stringify({ subscriberId: 'S', wholesalePlanId: 'WP-BASIC' }) });
    await cli.run('portin', 'create-order', '--file', 'order.json', '--order-id', 'ORD-7', '--number', '19459986801,19459986802', '--number', '19459986803');
    await cli.run('portin', 'cancel-order', '--order-id', 'ORD-7', '--gpsi', '19459986802');
    await cli.run('portin', 'eligibility-many', '--number', '19459986801,19459986802');
    expect(cli.calls.map((c) => [c.operation, c.input])).toEqual([
      ['createPortOrder', { subscriberId: 'S', wholesalePlanId: 'WP-BASIC', orderId: 'ORD-7', numbers: [{ gpsi: '19459986801' }, { gpsi: '19459986802' }, { gpsi: '19459986803' }] }],
      ['cancelPortOrder', { orderId: 'ORD-7', gpsi: '19459986802' }],
      ['checkPortOrderEligibility', { numbers: ['19459986801', '19459986802'] }],
    ]);
  });

  it('maps every operation sub-command to its operation', async () => {
    const cli = harness();
    const commands = [
      ['portin', 'eligibility'],
      ['portin', 'create'],
      ['portin', 'update'],
      ['portin', 'cancel'],
      ['portin', 'query'],
      ['balance', 'add-buckets'],
      ['balance', 'swap-primary'],
      ['balance', 'cancel-buckets'],
      ['balance', 'query'],
      ['balance', 'update'],
      ['balance', 'history'],
      ['balance', 'reserve'],
      ['balance', 'commit'],
      ['balance', 'release'],
      ['balance', 'top-up'],
      ['balance', 'adjust'],
      ['balance', 'transfer'],
    ];
    for (const command of commands) expect(await cli.run(...command, '--gpsi', '19459986891')).toBe(EXIT.SUCCESS);
    expect(cli.calls.map((c) => c.operation)).toEqual([
      'checkPortInEligibility',
      'createPortIn',
      'updatePortIn',
      'cancelPortIn',
      'queryPortIn',
      'addBuckets',
      'swapPrimaryBucket',
      'cancelBuckets',
      'queryBalances',
      'updateBalances',
      'queryBalanceHistory',
      'reserveBalance',
      'commitReservation',
      'releaseReservation',
      'topupBalance',
      'adjustBalance',
      'transferBalance',
    ]);
  });

  it('prints the error code and every field problem of an error reply and exits 3', async () => {
    const cli = harness(async () => {
      throw new ServiceReplyError('checkPortInEligibility', 'c-1', 'BAD_REQUEST', 'The command is invalid: 2 problem(s)', [
        { path: 'gpsi', reason: 'must be at least 11 characters' },
        { path: 'gpsi', reason: 'must match 11 to 15 digits' },
      ]);
    });
    expect(await cli.run('portin', 'eligibility', '--gpsi', '12ab')).toBe(EXIT.SERVICE_ERROR);
    expect(cli.err.join('\n')).toBe(
      'error BAD_REQUEST: The command is invalid: 2 problem(s)\n  gpsi: must be at least 11 characters\n  gpsi: must match 11 to 15 digits\n  (X-Correlation-Id c-1)',
    );
    expect(cli.closed()).toBe(1);
  });

  it('prints the error as JSON with --json', async () => {
    const cli = harness(async () => {
      throw new ServiceReplyError('queryPortIn', 'c-2', 'NOT_FOUND', 'no such request', []);
    });
    expect(await cli.run('--json', 'portin', 'query', '--gpsi', '19459986891')).toBe(EXIT.SERVICE_ERROR);
    expect(JSON.parse(cli.err[0])).toEqual({ error: { code: 'NOT_FOUND', message: 'no such request', problems: [] }, correlationId: 'c-2' });
  });

  it('exits 4 on a timeout, and passes --timeout through the configuration', async () => {
    const cli = harness(async () => {
      throw new RequestTimeoutError('queryBalances', 'c-3', 1500);
    });
    expect(await cli.run('--timeout', '1500', 'balance', 'query', '--gpsi', '19459986891')).toBe(EXIT.TIMEOUT);
    expect(cli.configs[0]?.requestTimeoutMs).toBe(1500);
    expect(cli.err[0]).toContain('error TIMEOUT: no reply within 1500 ms');
  });

  it('exits 2 on usage errors: unknown command, bad flag value, unreadable or invalid JSON, bad configuration', async () => {
    const cli = harness(undefined, { 'bad.json': '{ not json', 'list.json': '[1]' });
    expect(await cli.run('portin', 'teleport')).toBe(EXIT.USAGE);
    expect(await cli.run('balance', 'history', '--gpsi', '19459986891', '--limit', 'many')).toBe(EXIT.USAGE);
    expect(await cli.run('portin', 'create', '--file', 'missing.json')).toBe(EXIT.USAGE);
    expect(await cli.run('portin', 'create', '--file', 'bad.json')).toBe(EXIT.USAGE);
    expect(await cli.run('portin', 'create', '--file', 'list.json')).toBe(EXIT.USAGE);
    expect(await cli.run('--brokers', 'not a broker', 'portin', 'eligibility', '--gpsi', '19459986891')).toBe(EXIT.USAGE);
    expect(cli.err.join('\n')).toContain('KAFKA_BROKERS: expected a comma-separated list of host:port');
    expect(cli.calls).toEqual([]);
  });

  it('exits 1 on an unexpected failure', async () => {
    const cli = harness(async () => {
      throw new ClientClosedError('queryBalances');
    });
    expect(await cli.run('balance', 'query', '--gpsi', '19459986891')).toBe(EXIT.FAILURE);
    expect(cli.err[0]).toContain('error FAILURE: queryBalances: the client is closed');
  });

  it('answers --help on every level with exit 0', async () => {
    const cli = harness();
    for (const argv of [['--help'], ['portin', '--help'], ['balance', 'update', '--help'], ['events', 'tail', '--help']]) {
      expect(await cli.run(...argv)).toBe(EXIT.SUCCESS);
    }
    expect(cli.out.join('\n')).toContain('Exit codes:');
    expect(cli.out.join('\n')).toContain('wholesale balance update --gpsi 19459986891 --file balances.json');
  });

  it('tails events until interrupted, filtered by number, from the chosen position and group', async () => {
    const cli = harness();
    const event = (key: string) =>
      ({
        known: false,
        recordName: 'x.Y',
        value: { n: 1 },
        topic: 't',
        partition: 0,
        offset: '1',
        key,
        timestamp: '0',
        cloudEvent: { time: '2026-01-01T00:00:00Z' },
        headers: {},
      }) as ContractEvent;
    const running = cli.run('events', 'tail', '--from-beginning', '--group', 'g1', '--gpsi', '19459986891', '--topic', 'portin');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(cli.subscribed()).toMatchObject({ groupId: 'g1', fromBeginning: true, topics: ['wholesale.portin.events.v1'] });
    await cli.emit(event('19459986891'));
    await cli.emit(event('10000000000'));
    cli.interrupt();
    expect(await running).toBe(EXIT.SUCCESS);
    expect(cli.out).toEqual(['2026-01-01T00:00:00Z  Y  19459986891  {"n":1}']);
    expect(cli.closed()).toBe(1);
  });
});

describe('pretty output', () => {
  it('renders flat rows as an aligned table and nested records as indented key: value lines', () => {
    expect(
      prettyLines({
        status: 'Success',
        reasonCode: null,
        bucketRefId: ['1', '2'],
        balances: [
          {
            balanceType: 'Main',
            subBalances: [
              { id: 'a-1', remaining: 500 },
              { id: 'a-10', remaining: 51200 },
            ],
          },
        ],
      }),
    ).toEqual([
      'status: Success',
      'reasonCode: -',
      'bucketRefId: 1, 2',
      'balances:',
      '  - balanceType: Main',
      '    subBalances:',
      '      id    remaining',
      '      a-1   500',
      '      a-10  51200',
    ]);
  });

  it('keeps rows with a small record inside (a validFor) a table, its fields as dotted columns', () => {
    expect(
      prettyLines([
        { id: 'a-1', validFor: null, n: 1 },
        { id: 'a-2', validFor: { startDateTime: 's', endDateTime: 'e' }, n: 2 },
      ]),
    ).toEqual(['id   validFor.startDateTime  validFor.endDateTime  n', 'a-1  -                       -                     1', 'a-2  s                       e                     2']);
    expect(
      prettyLines([
        { id: 'a-2', validFor: { startDateTime: 's', endDateTime: 'e' }, n: 2 },
        { id: 'a-1', validFor: null, n: 1 },
      ])[0],
    ).toBe('id   validFor.startDateTime  validFor.endDateTime  n');
  });
});
