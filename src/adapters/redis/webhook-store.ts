import type { RedisClient } from './client';
import { webhookKeys, webhookPartnersKey } from './keys';
import type { DeadLetter, DeadLetterStore, RegistrationStore, WebhookEvent } from '../../webhooks/ports';
import { parseRegistration, type WebhookRegistration } from '../../webhooks/registration';

/**
 * Webhook registrations, dead letters and redeliveries in Redis. Dead letters are a stream per partner:
 * entry ids are `<ms>-<seq>`, so a range is chosen by time or by id. Redelivering moves entries to the
 * partner's redeliveries stream, which its dispatcher drains.
 */
export interface StoredDeadLetter extends DeadLetter {
  /** The stream entry id: `<ms since the epoch>-<seq>`. */
  id: string;
}

/**
 * The layout of a dead-letter or redelivery entry, named by its `format` field. Entries without one were
 * written before the field existed, in the same layout (format 1). A reader stops on a newer format instead
 * of misreading it (a rolling restart: the newer dispatchers read it). Registrations name theirs in their
 * JSON (REGISTRATION_FORMAT).
 */
export const LETTER_FORMAT = 1;

const fieldsOf = (flat: string[], id: string): Record<string, string> => {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]] = flat[i + 1]!;
  if (fields.format !== undefined && !(Number(fields.format) >= 1 && Number(fields.format) <= LETTER_FORMAT)) {
    throw new Error(`stored webhook entry ${id} of format ${fields.format}: newer than this reader reads (up to ${LETTER_FORMAT})`);
  }
  return fields;
};

const letterOf = (id: string, flat: string[]): StoredDeadLetter => {
  const fields = fieldsOf(flat, id);
  return { id, event: JSON.parse(fields.event) as WebhookEvent, reason: fields.reason ?? '', attempts: Number(fields.attempts ?? 0), failedAt: fields.failedAt ?? '' };
};

export class RedisWebhookStore implements RegistrationStore, DeadLetterStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  async partners(): Promise<string[]> {
    return (await this.redis.smembers(webhookPartnersKey(this.prefix))).sort();
  }

  async get(partnerId: string): Promise<WebhookRegistration | undefined> {
    const json = await this.redis.get(webhookKeys(this.prefix, partnerId).registration);
    return json === null ? undefined : parseRegistration(json);
  }

  /** Writes the registration, then lists the partner (a reader never finds a listed partner without one). */
  async put(registration: WebhookRegistration): Promise<void> {
    await this.redis.set(webhookKeys(this.prefix, registration.partnerId).registration, JSON.stringify(registration));
    await this.redis.sadd(webhookPartnersKey(this.prefix), registration.partnerId);
  }

  /** Unlists the partner, then deletes its registration; its dead letters stay. Answers whether it was registered. */
  async remove(partnerId: string): Promise<boolean> {
    await this.redis.srem(webhookPartnersKey(this.prefix), partnerId);
    return (await this.redis.del(webhookKeys(this.prefix, partnerId).registration)) > 0;
  }

  async add(partnerId: string, letter: DeadLetter): Promise<void> {
    await this.redis.xadd(
      webhookKeys(this.prefix, partnerId).deadLetters,
      '*',
      'format',
      String(LETTER_FORMAT),
      'event',
      JSON.stringify(letter.event),
      'reason',
      letter.reason,
      'attempts',
      String(letter.attempts),
      'failedAt',
      letter.failedAt,
    );
  }

  /** Dead letters with ids from `from` to `to` (stream ids or ms; '-' and '+' for the ends), at most `count`. */
  async deadLetters(partnerId: string, from = '-', to = '+', count = 1000): Promise<StoredDeadLetter[]> {
    const entries = await this.redis.xrange(webhookKeys(this.prefix, partnerId).deadLetters, from, to, 'COUNT', count);
    return entries.map(([id, flat]) => letterOf(id, flat));
  }

  /** Moves the dead letters of the range to the redeliveries, in one step; answers how many. */
  async redeliver(partnerId: string, from: string, to: string, count = 10_000): Promise<StoredDeadLetter[]> {
    const keys = webhookKeys(this.prefix, partnerId);
    const letters = await this.deadLetters(partnerId, from, to, count);
    if (letters.length === 0) return [];
    const moves = this.redis.multi();
    for (const letter of letters) {
      moves.xadd(keys.redeliveries, '*', 'format', String(LETTER_FORMAT), 'event', JSON.stringify(letter.event), 'deadLetter', letter.id);
      moves.xdel(keys.deadLetters, letter.id);
    }
    await moves.exec();
    return letters;
  }

  async redeliveries(partnerId: string, count: number): Promise<{ id: string; event: WebhookEvent }[]> {
    const entries = await this.redis.xrange(webhookKeys(this.prefix, partnerId).redeliveries, '-', '+', 'COUNT', count);
    return entries.map(([id, flat]) => ({ id, event: JSON.parse(fieldsOf(flat, id).event) as WebhookEvent }));
  }

  async redelivered(partnerId: string, id: string): Promise<void> {
    await this.redis.xdel(webhookKeys(this.prefix, partnerId).redeliveries, id);
  }
}
