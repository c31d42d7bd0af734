import { randomUUID } from 'node:crypto';
import { redisSnapshot } from '../support/redis-snapshot';
import { createCommand, gpsiEndingIn } from '../support/portin/journey';
import { journeyWithNpSide } from '../support/portin/np-side';
import { until } from '../support/until';

/**
 * Issue 15 item 6 over the real stack: pwdPin and accountNo live only on the open request. While a port
 * is open, a scan of everything the service keeps in Redis finds them in that request and nowhere else
 * (outcome records, claims); once it is COMPLETED or CANCELLED the scan finds them nowhere.
 */
const secretsOf = () => ({ pwdPin: `P${randomUUID().slice(0, 12)}`, accountNo: `A${randomUUID().replace(/-/g, '').slice(0, 24)}` });

describe('the lifetime of pwdPin and accountNo in Redis (real stack)', () => {
  const stack = journeyWithNpSide();

  /** The keys under this file's prefix whose value holds any of the strings. */
  async function keysHolding(...values: string[]): Promise<string[]> {
    const everything = await redisSnapshot(stack.j.service.redis, `${stack.j.config.redis.keyPrefix}*`);
    return Object.entries(everything)
      .filter(([, entry]) => values.some((value) => JSON.stringify(entry).includes(value)))
      .map(([key]) => key.slice(stack.j.config.redis.keyPrefix.length));
  }

  /** Once the port ended, nothing anywhere holds the secrets (the follow-ups of the end are done by then). */
  const eventuallyNowhere = (...values: string[]) => until('the secrets gone from Redis', async () => ((await keysHolding(...values)).length === 0 ? true : undefined), { timeoutMs: 10000 });

  it('an open port holds them on its request only; COMPLETED leaves them nowhere, and a redelivered create brings none back', async () => {
    const gpsi = gpsiEndingIn('00'); // stays OPEN until the test completes it by hand
    const secrets = secretsOf();
    const command = createCommand(gpsi, { portInfo: { ...createCommand(gpsi).portInfo, ...secrets } });
    const correlationId = randomUUID();
    const created = await stack.j.send('CreatePortIn', command, 'WC-1', correlationId);
    const submit = await stack.np.request(gpsi);
    expect(submit.value.portInfo).toMatchObject(secrets); // the NP side gets them in clear
    await stack.j.waitForRecord(gpsi, (r) => typeof r.portOrderId === 'string');
    expect(await keysHolding(secrets.pwdPin)).toEqual([`{${gpsi}}:portin`]);
    expect(await keysHolding(secrets.accountNo)).toEqual([`{${gpsi}}:portin`]);

    await stack.np.respond('PortConfirmed', submit, { dueDate: new Date().toISOString() });
    await stack.np.respond('ActivationComplete', submit, { activatedAt: new Date().toISOString() });
    await stack.j.waitForStatus(gpsi, 'COMPLETED');
    await eventuallyNowhere(secrets.pwdPin, secrets.accountNo);
    const redelivered = await stack.j.send('CreatePortIn', command, 'WC-1', correlationId);
    expect(redelivered.value).toEqual(created.value);
    expect(await keysHolding(secrets.pwdPin, secrets.accountNo)).toEqual([]);
  });

  it('a port updated with new secrets and COMPLETED leaves neither the old nor the new ones', async () => {
    const gpsi = gpsiEndingIn('24');
    const first = { ...secretsOf(), pwdPin: '0000' }; // the simulated old provider asks for resolution
    const second = secretsOf();
    const command = createCommand(gpsi, { portInfo: { ...createCommand(gpsi).portInfo, ...first } });
    await stack.j.send('CreatePortIn', command);
    await stack.j.waitForStatus(gpsi, 'RESOLUTION_REQUIRED');
    await stack.j.send('UpdatePortIn', { partnerTransactionId: command.partnerTransactionId, gpsi, updatePortInfo: second });
    await stack.j.waitForStatus(gpsi, 'COMPLETED', '2');
    await eventuallyNowhere(first.accountNo, second.pwdPin, second.accountNo);
  });

  it('a port cancelled while the NP side worked on it leaves them nowhere once CANCELLED', async () => {
    const gpsi = gpsiEndingIn('00');
    const secrets = secretsOf();
    const command = createCommand(gpsi, { portInfo: { ...createCommand(gpsi).portInfo, ...secrets } });
    await stack.j.send('CreatePortIn', command);
    await stack.j.send('CancelPortIn', { gpsi });
    await stack.j.waitForStatus(gpsi, 'CANCELLED');
    await eventuallyNowhere(secrets.pwdPin, secrets.accountNo);
  });
});
