import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { Redis } from 'ioredis';
import { createBalanceComponents } from '../../src/app/balance';
import { createPortInComponents } from '../../src/app/portin';
import { loadCatalog } from '../../src/app/service';
import { createRedisClient, type RedisClient } from '../../src/adapters/redis/client';
import { portInKeys } from '../../src/adapters/redis/portin-keys';
import { loadFunctionLibrary } from '../../src/adapters/redis/scripts';
import { isServiceError } from '../../src/contract/errors';
import type { CommandContext, HandlerRegistration } from '../../src/contract/handlers';
import { causeIds, requestIdFor } from '../../src/domain/portin/ids';
import { createPortInHandlers } from '../../src/handlers/portin';
import { commandIdOf, fingerprintOf } from '../../src/pipeline/command-processor';
import { testConfig } from '../support/harness';
import { createCommand, gpsiEndingIn } from '../support/portin/journey';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A port-in change replays from the outcome its Lua step records with it, under the command id and with the
 * payload's fingerprint, on a real Redis: what one CreatePortIn costs in Redis commands (each one round
 * trip), a redelivery rebuilding the same reply and NP request (secrets included), another payload under
 * the same id answered CONFLICT, and a record in the previous format (no version, no fingerprint) still replayed.
 */
describe('port-in changes replay from their own recorded outcome (real Redis)', () => {
  const config = testConfig();
  const prefix = config.redis.keyPrefix;
  let redis: RedisClient;
  let handlers: Map<string, HandlerRegistration>;

  beforeAll(async () => {
    redis = createRedisClient({ urls: config.redis.urls, cluster: false });
    // Loaded now, so the commands counted below are the handler's only.
    await loadFunctionLibrary(redis);
    const catalog = loadCatalog(config.catalogFile);
    const balance = createBalanceComponents({ config, catalog, redis });
    const portin = createPortInComponents({ config, catalog, redis, subscriptions: balance.subscriptions });
    handlers = new Map(createPortInHandlers(portin).map((h) => [h.commandRecord.slice(h.commandRecord.lastIndexOf('.') + 1), h]));
  });

  afterAll(async () => {
    await redis.quit();
  });

  /** The context the pipeline gives a change: its command id from (customer, operation, correlation id), its payload's fingerprint. */
  const contextOf = (operation: string, correlationId: string, payload: unknown): CommandContext => ({
    correlationId,
    commandId: commandIdOf('WC-1', operation, correlationId),
    operation,
    wholesaleCustomerId: 'WC-1',
    canSee: (owner) => owner === 'WC-1',
    visibleCustomerIds: ['WC-1'],
    now: new Date(),
    log: pino({ level: 'silent' }),
    fingerprint: fingerprintOf(payload),
  });

  const run = async (operation: string, payload: Record<string, unknown>, correlationId: string) => {
    try {
      return await handlers.get(operation)!.handle(payload, contextOf(operation, correlationId, payload));
    } catch (error) {
      if (!isServiceError(error)) throw error;
      return { error: { code: error.code, message: error.message } };
    }
  };

  /** Every command the handler sends to Redis meanwhile (MONITOR, this file's key prefix): one round trip each. */
  async function counted<T>(work: () => Promise<T>): Promise<{ result: T; commands: string[] }> {
    const watcher = new Redis(config.redis.urls[0]);
    const monitor = await watcher.monitor();
    const commands: string[] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      // a script's own commands are reported too, from "lua": not round trips
      if (!source.startsWith('lua') && args.some((arg) => String(arg).includes(prefix))) commands.push(`${String(args[0]).toUpperCase()} ${String(args[1]).replace(/_[0-9a-f]+$/, '')}`);
    });
    const result = await work();
    await sleep(200); // MONITOR reports a little after the command ran
    monitor.disconnect();
    watcher.disconnect();
    return { result, commands };
  }

  it('one CreatePortIn takes 6 Redis commands (was 10 in the handler and 2 in the reply cache); its redelivery rebuilds the same reply and NP request, secrets included, from its record', async () => {
    const command = createCommand(gpsiEndingIn('31'));
    const correlationId = randomUUID();
    const first = await counted(() => run('CreatePortIn', command, correlationId));
    expect(first.result).toMatchObject({ reply: { status: 'Success', portStatus: 'OPEN' } });
    expect(first.commands).toEqual([
      'FCALL portinRead', // this command's recorded outcome, the number's request and subscription status
      'FCALL portinClaimTransaction', // the partner transaction (its own slot)
      'FCALL portinWrite', // the request and the outcome, with the command id and fingerprint
      'FCALL subscriptionCreate', // the pending subscription
      `ZADD ${prefix}{portin-expiry}:schedule`, // the request's expiry (the schedule's own slot)
      'FCALL portinSettleTransaction', // the first reply kept for a resubmission
    ]);
    const again = await counted(() => run('CreatePortIn', command, correlationId));
    expect(again.result).toEqual({ ...first.result, replayed: true });
    expect(JSON.stringify(again.result)).toContain('"pwdPin":"4321"'); // the NP request, its secrets back from the open request
    // the record, the open request for the secrets, then the follow-ups and the settlement again (each idempotent)
    expect(again.commands).toEqual(['FCALL portinRead', 'FCALL portinFind', 'FCALL subscriptionCreate', `ZADD ${prefix}{portin-expiry}:schedule`, 'FCALL portinSettleTransaction']);
  });

  it('the same command id with another payload is a CONFLICT, as for a balance change, and changes nothing', async () => {
    const gpsi = gpsiEndingIn('32');
    const command = createCommand(gpsi);
    const correlationId = randomUUID();
    await run('CreatePortIn', command, correlationId);
    const conflict = `X-Correlation-Id ${correlationId} was already used for a different CreatePortIn command`;
    expect(await run('CreatePortIn', { ...command, subscriberId: 'SUB-2' }, correlationId)).toEqual({ error: { code: 'CONFLICT', message: conflict } });

    const update = { partnerTransactionId: command.partnerTransactionId, gpsi, updatePortInfo: { pwdPin: '2468' } };
    const updateId = randomUUID();
    // accepted only in RESOLUTION_REQUIRED or REJECTED: the refusal records nothing, so a retry is judged again
    expect(await run('UpdatePortIn', update, updateId)).toMatchObject({ error: { code: 'CONFLICT' } });
    const cancelId = randomUUID();
    const cancel = { partnerTransactionId: command.partnerTransactionId, gpsi };
    const cancelled = await run('CancelPortIn', cancel, cancelId);
    expect(cancelled).toMatchObject({ reply: { status: 'Success', portStatus: 'CANCEL_PENDING' } });
    expect(await run('CancelPortIn', cancel, cancelId)).toEqual({ ...cancelled, replayed: true });
    expect(await run('CancelPortIn', { gpsi }, cancelId)).toEqual({ error: { code: 'CONFLICT', message: `X-Correlation-Id ${cancelId} was already used for a different CancelPortIn command` } });
  });

  it('a record in the previous format (written before the version: no fingerprint) is replayed as it is; an old reply-cache entry is not read', async () => {
    const command = createCommand(gpsiEndingIn('33'));
    const correlationId = randomUUID();
    const first = await run('CreatePortIn', command, correlationId);
    // As the worker before this version recorded it: the bare outcome, keys in its order, no "v", no "by".
    const commandId = commandIdOf('WC-1', 'CreatePortIn', correlationId);
    const key = portInKeys(prefix, command.gpsi).outcome(causeIds.creation(requestIdFor(commandId)));
    const { v, by, messages, followUps, reply } = JSON.parse((await redis.get(key))!) as Record<string, unknown>;
    expect([v, (by as { commandId: string }).commandId]).toEqual([2, commandId]);
    await redis.set(key, JSON.stringify({ messages, followUps, reply }), 'KEEPTTL');
    const oldReplyCache = `${prefix}reply:{partner:WC-1}:${commandId}`;
    await redis.set(oldReplyCache, Buffer.from([0x02, 0x01]), 'EX', 60);
    const again = await counted(() => run('CreatePortIn', command, correlationId));
    expect(again.result).toEqual({ ...first, replayed: true });
    expect(again.commands.some((c) => c.startsWith('GET'))).toBe(false);
    // without a fingerprint another payload under the id cannot be told apart: the first outcome answers, nothing is applied twice
    expect(await run('CreatePortIn', { ...command, subscriberId: 'SUB-2' }, correlationId)).toEqual({ ...first, replayed: true });
    // a record in a format this worker does not know is not guessed at
    await redis.set(key, JSON.stringify({ v: 3, messages, followUps, reply }), 'KEEPTTL');
    await expect(run('CreatePortIn', command, correlationId)).rejects.toThrow(/unknown format 3/);
  });
});
