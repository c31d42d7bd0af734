import type { FieldProblem } from '../contract/errors';
import { isInPartnerNamespace, partnerCommandTopicOf, partnerNamespace, partnerTopic } from '../contract/partner-topics';
import { type EnvelopeRules } from './envelope';
import { HEADER } from '../contract/headers';

/**
 * Where an admitted command is answered — pure rules; the command processor adds the one I/O step (does
 * the requested topic exist, how many partitions has it). Replies go to the acting partner's own reply
 * topic: Kafka ACLs cannot filter records, so a topic holding only that partner's replies is what lets it
 * read its replies and nobody else's. A requested reply topic (X-Reply-Topic, kafka_replyTopic) is honoured
 * only inside the caller's own namespace; anything else is refused, answered on the default topic.
 */
const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;

export const REPLY_TOPIC_PATH = `headers.${HEADER.replyTopic}`;
export const REPLY_PARTITION_PATH = `headers.${HEADER.kafkaReplyPartition}`;

/**
 * The partner's own reply topic of the domain; `partnerId` undefined (AUTH_MODE=none, a node the hierarchy
 * does not know) → the legacy shared reply topic.
 */
export function defaultReplyTopic(rules: EnvelopeRules, partnerId: string | undefined): string {
  return partnerId === undefined ? rules.defaultReplyTopic : partnerTopic(rules.partnerTopicPrefix, partnerId, rules.partnerReplyRole);
}

/** Why a requested reply topic may not be used, judged by its name alone; undefined: usable if it exists. */
export function replyTopicRefusal(rules: EnvelopeRules, partnerId: string | undefined, requested: string): string | undefined {
  if (!TOPIC_NAME.test(requested)) return 'must be a Kafka topic name (letters, digits, . _ -; at most 249)';
  if (requested.startsWith('__')) return 'must not name an internal Kafka topic';
  if (rules.forbiddenReplyTopics.has(requested)) return 'must not name a command, event, dead-letter or NP topic';
  if (partnerId === undefined) return undefined; // AUTH_MODE=none for an unknown node: nobody's namespace to keep to
  const { partnerTopicPrefix: prefix } = rules;
  if (!isInPartnerNamespace(prefix, partnerId, requested)) return `must be a topic of your own namespace ${partnerNamespace(prefix, partnerId)}`;
  if (requested === partnerTopic(prefix, partnerId, 'portinEvents') || requested === partnerTopic(prefix, partnerId, 'balanceEvents')) {
    return 'must not name one of your event topics';
  }
  if (partnerCommandTopicOf(prefix, requested) !== undefined) return 'must not name one of your command topics';
  return undefined;
}

export const missingTopicProblem = (): FieldProblem => ({ path: REPLY_TOPIC_PATH, reason: 'names a topic that does not exist (the service does not create reply topics)' });

/** Why a requested reply partition may not be used on a topic of `count` partitions; undefined: it may. */
export function replyPartitionRefusal(partition: number, count: number): string | undefined {
  return Number.isInteger(partition) && partition >= 0 && partition < count ? undefined : `must be a partition of the reply topic (0 to ${count - 1})`;
}
