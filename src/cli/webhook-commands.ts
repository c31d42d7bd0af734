import { InvalidArgumentError, type Command } from 'commander';
import { createRedisClient } from '../adapters/redis/client';
import { RedisWebhookStore, type StoredDeadLetter } from '../adapters/redis/webhook-store';
import { PARTNER_ID } from '../contract/partner-topics';
import { endpointUrlProblems, rotateSecret, setEndpoint, type WebhookRegistration } from '../webhooks/registration';
import type { WebhookAdminConfig } from './config';
import { UsageError } from './input';
import type { CliIo } from './io';

/**
 * `wholesale admin webhooks set|show|rotate|remove|redeliver`: a partner's webhook endpoint and secrets,
 * kept where the dispatcher reads them (docs/webhooks.md).
 */
export interface WebhookCommandDeps {
  io: CliIo;
  loadConfig: () => WebhookAdminConfig;
  json: (command: Command) => boolean;
  now?: () => Date;
}

const partnerIdArgument = (raw: string): string => {
  if (!PARTNER_ID.test(raw)) throw new InvalidArgumentError('expected a partner id (letters, digits, _ -; at most 64)');
  return raw;
};

const durationArgument = (raw: string): number => {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(raw);
  if (!match) throw new InvalidArgumentError('expected a duration such as 30m, 24h or 7d');
  return Number(match[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 'ms' | 's' | 'm' | 'h' | 'd'];
};

/** A dead-letter position: a stream id (`<ms>-<seq>`) as it is, an ISO time as its milliseconds. */
export function rangeBound(raw: string, option: string): string {
  if (/^\d+(-\d+)?$/.test(raw) || raw === '-' || raw === '+') return raw;
  const ms = Date.parse(raw);
  if (Number.isNaN(ms)) throw new UsageError(`${option}: expected a dead-letter id (<ms>-<seq>) or an ISO time, got ${JSON.stringify(raw)}`);
  return String(ms);
}

/** The registration as printed: secrets included only when just created or rotated (`reveal`). */
function describe(registration: WebhookRegistration, reveal: boolean): Record<string, unknown> {
  const secrets = registration.secrets.map((s) => ({
    ...(reveal ? { secret: s.secret } : { secret: `${s.secret.slice(0, 10)}…` }),
    createdAt: s.createdAt,
    ...(s.expiresAt ? { expiresAt: s.expiresAt } : {}),
  }));
  return { ...registration, secrets };
}

export function addWebhookCommands(admin: Command, deps: WebhookCommandDeps): void {
  const { io } = deps;
  const now = deps.now ?? (() => new Date());
  async function withStore<T>(work: (store: RedisWebhookStore, config: WebhookAdminConfig) => Promise<T>): Promise<T> {
    const config = deps.loadConfig();
    const redis = createRedisClient({ urls: config.redis.urls, cluster: config.redis.cluster, maxRetriesPerRequest: 1 });
    try {
      return await work(new RedisWebhookStore(redis, config.redis.keyPrefix), config);
    } finally {
      redis.disconnect();
    }
  }
  const print = (command: Command, value: Record<string, unknown>, human: string[]): void => {
    if (deps.json(command)) io.stdout(JSON.stringify(value));
    else human.forEach((line) => io.stdout(line));
  };
  const registered = async (store: RedisWebhookStore, partnerId: string): Promise<WebhookRegistration> => {
    const registration = await store.get(partnerId);
    if (!registration) throw new UsageError(`partner ${partnerId} has no webhook registration (wholesale admin webhooks set)`);
    return registration;
  };
  const human = (registration: WebhookRegistration, reveal: boolean): string[] => [
    `${registration.partnerId} → ${registration.url}`,
    ...registration.secrets.map((s) => `  ${reveal ? s.secret : `${s.secret.slice(0, 10)}…`}  created ${s.createdAt}${s.expiresAt ? `, valid until ${s.expiresAt}` : ''}`),
  ];

  const webhooks = admin.command('webhooks').description("a partner's webhook endpoint, its signing secrets and its dead letters (docs/webhooks.md)");
  const partnerCommand = (name: string, description: string): Command =>
    webhooks.command(name).description(description).argument('<partnerId>', 'the partner (root customer) id', partnerIdArgument);

  partnerCommand('set', "register (or change) the partner's HTTPS endpoint; a first registration creates its signing secret, printed once")
    .requiredOption('--url <url>', 'the endpoint, https://…')
    .addHelpText('after', '\nExample:\n  wholesale admin webhooks set 100000108464 --url https://partner.example/webhooks/wholesale')
    .action(async (partnerId: string, options: { url: string }, self: Command) => {
      await withStore(async (store, config) => {
        const problems = endpointUrlProblems(options.url, config.allowHttp);
        if (problems.length > 0) throw new UsageError(`--url: ${problems.join('; ')}`);
        const existing = await store.get(partnerId);
        const registration = setEndpoint(existing, partnerId, options.url, now());
        await store.put(registration);
        print(self, describe(registration, !existing), human(registration, !existing));
      });
    });

  partnerCommand('show', 'print the registration (secrets shortened)').action(async (partnerId: string, _options: unknown, self: Command) => {
    await withStore(async (store) => {
      const registration = await registered(store, partnerId);
      const deadLetters = (await store.deadLetters(partnerId)).length;
      print(self, { ...describe(registration, false), deadLetters }, [...human(registration, false), `  dead letters: ${deadLetters}`]);
    });
  });

  partnerCommand('rotate', 'add a new signing secret (printed once); the current one stays valid for --grace, both signatures are sent meanwhile')
    .option('--grace <duration>', 'how long the current secret stays valid', durationArgument, 24 * 3_600_000)
    .action(async (partnerId: string, options: { grace: number }, self: Command) => {
      await withStore(async (store) => {
        const registration = rotateSecret(await registered(store, partnerId), now(), options.grace);
        await store.put(registration);
        print(self, describe(registration, true), human(registration, true));
      });
    });

  partnerCommand('remove', 'unregister the endpoint: deliveries stop (dead letters are kept)').action(async (partnerId: string, _options: unknown, self: Command) => {
    await withStore(async (store) => {
      const removed = await store.remove(partnerId);
      print(self, { partnerId, removed }, [removed ? `${partnerId}: webhook registration removed` : `${partnerId}: no webhook registration`]);
    });
  });

  partnerCommand('redeliver', 'deliver the dead letters of a range again (by dead-letter id or time); without --from/--to, all of them')
    .option('--from <id|time>', 'first dead letter: its id (<ms>-<seq>) or an ISO time', '-')
    .option('--to <id|time>', 'last dead letter: its id or an ISO time', '+')
    .option('--list', 'only list the dead letters of the range')
    .addHelpText('after', '\nExample:\n  wholesale admin webhooks redeliver 100000108464 --from 2026-11-28T10:00:00Z --to 2026-11-28T12:00:00Z')
    .action(async (partnerId: string, options: { from: string; to: string; list?: boolean }, self: Command) => {
      const from = rangeBound(options.from, '--from');
      const to = rangeBound(options.to, '--to');
      await withStore(async (store) => {
        await registered(store, partnerId);
        const letters: StoredDeadLetter[] = options.list ? await store.deadLetters(partnerId, from, to) : await store.redeliver(partnerId, from, to);
        const summary = letters.map((l) => ({
          id: l.id,
          eventId: l.event.id,
          key: l.event.key,
          topic: l.event.topic,
          partition: l.event.partition,
          offset: l.event.offset,
          reason: l.reason,
          failedAt: l.failedAt,
        }));
        print(self, { partnerId, [options.list ? 'deadLetters' : 'redelivered']: summary }, [
          `${partnerId}: ${letters.length} dead letter(s) ${options.list ? 'in the range' : 'queued for redelivery'}`,
          ...summary.map((l) => `  ${l.id}  event ${l.eventId}  ${l.topic}[${l.partition}]@${l.offset}  ${l.reason}`),
        ]);
      });
    });
}
