import { randomUUID } from 'node:crypto';
import { loadNpSimulatorConfig } from '../../dev/np-simulator/config';
import { createLogger } from '../../src/observability/logger';
import { startNpSimulator } from '../../dev/np-simulator/np-simulator';
import { DLQ_HEADER, HEADER } from '../../src/contract/headers';
import { testAuth, type TestAuth } from '../support/auth';
import { balanceRecord } from '../support/balance-client';
import { envFor, partnerTopicsOf, TopicReader, type Reply } from '../support/harness';
import { createCommand, gpsiEndingIn, PORTIN } from '../support/portin/journey';
import { useService } from '../support/service-fixture';

/**
 * A full journey — a port-in sent back for resolution, updated with new secrets, confirmed and completed,
 * queried, then a balance command; plus a refused command carrying over-long secrets, an expired token
 * and a dead letter — with the service and the NP simulator logging at trace level through the
 * production logger. Every log line, reply, event and dead letter is searched for the pwdPin, accountNo
 * and token values: none may appear. The NP requests must carry the port-in secrets (the old provider
 * checks them), which shows the same search finds them where they are.
 */
describe('secrets never appear in logs, replies, events or dead letters', () => {
  let auth: TestAuth;
  const logLines: string[] = [];
  const records: Reply[] = [];

  const log = createLogger({ level: 'trace', name: 'secrets-test', destination: { write: (line: string) => logLines.push(line) } });

  beforeAll(async () => {
    auth = await testAuth();
  });

  const fx = useService({ env: () => ({ ...auth.env, LOG_LEVEL: 'trace' }), log, requester: true });

  beforeAll(async () => {
    const simulator = fx.track(
      await startNpSimulator(
        loadNpSimulatorConfig({ ...process.env, ...envFor(fx.config), NP_SIM_GROUP_ID: `np-sim-${randomUUID().slice(0, 8)}`, NP_SIM_TIME_SCALE: '100000', LOG_LEVEL: 'trace' }),
        { log },
      ),
    );
    await simulator.joined;
    const { portinCommands, balanceCommands, ...outputs } = fx.config.topics; // the commands hold the secrets as partners send them
    // alpha's own reply and event topics too: its replies and its copies of the events go there.
    fx.track(await TopicReader.start(fx.config, [...Object.values(outputs), ...Object.values(partnerTopicsOf(fx.config, 'alpha'))], (record) => records.push(record)));
  });

  afterAll(async () => {
    auth?.cleanup();
  });

  const until = async (what: string, condition: () => boolean, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it('a full journey leaves no pwdPin, accountNo or token anywhere but the NP requests', async () => {
    const secrets = {
      firstPin: 'Pin-7Qx-0417',
      firstAccount: '000000000000000', // all zeros: the simulated old provider asks for resolution
      secondPin: 'Zq9-pin-5521',
      secondAccount: 'ACCT-88k-31947',
      tooLongPin: 'Xx-secret-pin-999', // 17 characters: refused, and not echoed
      tooLongAccount: 'ACCT-way-too-long-for-the-field-77',
      token: await auth.signer.sign('alpha'),
      expiredToken: await auth.signer.sign('alpha', { ttlSeconds: -300 }),
    };
    const gpsi = gpsiEndingIn('42');
    const send = (role: 'portinCommands' | 'balanceCommands', record: string, value: object, token = secrets.token) =>
      fx.requester.send(role, record, value, { token, headers: { [HEADER.wholesaleCustomerId]: 'alpha-b1' }, key: gpsi });
    const statusOf = (gpsiEvents: Reply[]) => gpsiEvents.map((e) => `${e.value.portStatus}/v${e.value.portOrderVersion}`);
    const portInEvents = () => records.filter((r) => r.topic === fx.config.topics.portinEvents && r.key === gpsi);

    const create = createCommand(gpsi, { portInfo: { ...createCommand(gpsi).portInfo, pwdPin: secrets.firstPin, accountNo: secrets.firstAccount } });
    expect((await send('portinCommands', PORTIN('CreatePortIn'), create)).value.status).toBe('Success');
    await until('RESOLUTION_REQUIRED', () => statusOf(portInEvents()).includes('RESOLUTION_REQUIRED/v1'));
    const queried = await send('portinCommands', PORTIN('QueryPortIn'), { gpsi });
    expect(queried.value.portInfo).toMatchObject({ pwdPin: '****', accountNo: '****0000' });
    const update = { partnerTransactionId: create.partnerTransactionId, gpsi, updatePortInfo: { pwdPin: secrets.secondPin, accountNo: secrets.secondAccount } };
    expect((await send('portinCommands', PORTIN('UpdatePortIn'), update)).value.status).toBe('Success');
    await until('COMPLETED', () => statusOf(portInEvents()).includes('COMPLETED/v2'));
    expect((await send('portinCommands', PORTIN('QueryPortIn'), { partnerTransactionId: create.partnerTransactionId })).value.portInfo).toMatchObject({ pwdPin: '****', accountNo: '****1947' });
    expect((await send('balanceCommands', balanceRecord('QueryBalances'), { gpsi })).value.status).toBe('Success');

    const refused = createCommand(gpsiEndingIn('43'), { portInfo: { ...create.portInfo, pwdPin: secrets.tooLongPin, accountNo: secrets.tooLongAccount } });
    const badRequest = await send('portinCommands', PORTIN('CreatePortIn'), refused);
    expect(badRequest.value.error.problems.map((p: { path: string }) => p.path)).toEqual(['portInfo.accountNo', 'portInfo.pwdPin']);
    // An expired token: refused, recorded on the DLQ without its token, answered nowhere.
    const expired = await fx.requester.dispatch('portinCommands', PORTIN('QueryPortIn'), { gpsi }, { token: secrets.expiredToken, key: gpsi });
    const poison = randomUUID();
    await fx.requester.sendRaw(fx.config.topics.portinCommands, {
      key: gpsi,
      value: Buffer.from('not avro'),
      headers: { [HEADER.correlationId]: poison, [HEADER.authorization]: `Bearer ${secrets.token}` },
    });
    await fx.requester.awaitReply(poison);
    expect(fx.requester.unclaimed(expired)).toBeUndefined();
    await until('the dead letter', () => records.some((r) => r.topic === fx.config.topics.deadLetters && r.headers[DLQ_HEADER.correlationId] === poison));
    await until('the balance events', () => records.some((r) => r.topic === fx.config.topics.balanceEvents && r.key === gpsi));

    // Everything the service and the simulator wrote, as text: log lines; each record's key, headers,
    // decoded value and raw bytes (Avro writes strings as plain UTF-8).
    const text = (r: Reply) => [r.key ?? '', JSON.stringify(r.value), r.rawValue?.toString('utf8') ?? '', ...Object.entries(r.rawHeaders).map(([name, v]) => `${name}=${String(v)}`)].join('\n');
    const npRequests = records
      .filter((r) => r.topic === fx.config.topics.npRequests)
      .map(text)
      .join('\n');
    const alpha = partnerTopicsOf(fx.config, 'alpha');
    const elsewhere = {
      logs: logLines.join(''),
      replies: records
        .filter((r) => [fx.config.topics.portinReplies, fx.config.topics.balanceReplies, alpha.portinReplies, alpha.balanceReplies].includes(r.topic))
        .map(text)
        .join('\n'),
      events: records
        .filter((r) => [fx.config.topics.portinEvents, fx.config.topics.balanceEvents, alpha.portinEvents, alpha.balanceEvents].includes(r.topic))
        .map(text)
        .join('\n'),
      deadLetters: records
        .filter((r) => r.topic === fx.config.topics.deadLetters)
        .map(text)
        .join('\n'),
      npResponses: records
        .filter((r) => r.topic === fx.config.topics.npResponses)
        .map(text)
        .join('\n'),
    };
    // The haystacks are real: the journey was logged, answered and published.
    expect(logLines.filter((l) => l.includes('"command handled"')).length).toBeGreaterThanOrEqual(8);
    expect(Object.values(elsewhere).every((haystack) => haystack.length > 100)).toBe(true);
    expect(elsewhere.events).toContain(gpsi);

    const values = Object.entries(secrets).flatMap(([name, value]) =>
      name.toLowerCase().includes('token')
        ? [
            [name, value],
            [`${name} signature`, value.split('.')[2]],
          ]
        : [[name, value]],
    );
    const found = values.flatMap(([name, value]) =>
      Object.entries(elsewhere)
        .filter(([, haystack]) => haystack.includes(value))
        .map(([where]) => `${name} in ${where}`),
    );
    expect(found).toEqual([]);
    // Where the secrets must be: the NP requests carry the port information to the old provider.
    expect([secrets.firstPin, secrets.firstAccount, secrets.secondPin, secrets.secondAccount].map((v) => npRequests.includes(v))).toEqual([true, true, true, true]);
    expect(npRequests.includes(secrets.token)).toBe(false);
  });
});
