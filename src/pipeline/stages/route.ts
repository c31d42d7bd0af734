import { asRetriable } from '../../contract/errors';
import type { Domain } from '../../contract/topics';
import { TopicRefusedError } from '../../contract/transport';
import type { Envelope, RoutedEnvelope } from '../envelope';
import { defaultReplyTopic, missingTopicProblem, REPLY_PARTITION_PATH, REPLY_TOPIC_PATH, replyPartitionRefusal, replyTopicRefusal } from '../reply-route';
import type { ProcessorDeps } from './context';

// Routing: where a command is answered. Judged once the caller is known (admit.ts): a requested reply
// topic only inside its own partner namespace, existing, with a partition in range.

/** The envelope answered on the partner's default reply topic, whatever the requester asked for. */
export function routedTo(deps: ProcessorDeps, domain: Domain, envelope: Envelope, partnerId: string | undefined): RoutedEnvelope {
  return { ...envelope, replyTopic: defaultReplyTopic(deps.envelopeRules[domain], partnerId) };
}

/**
 * The requested reply topic and partition, honoured when they pass; each refusal joins the command's
 * problems (a BAD_REQUEST on the default topic, listing them with every other problem found).
 */
export async function route(deps: ProcessorDeps, domain: Domain, envelope: Envelope, partnerId: string | undefined): Promise<RoutedEnvelope> {
  const rules = deps.envelopeRules[domain];
  const problems = [...envelope.problems];
  const answered = (replyTopic: string, replyPartition?: number): RoutedEnvelope => ({ ...envelope, replyTopic, replyPartition, problems });
  const fallback = defaultReplyTopic(rules, partnerId);
  const requested = envelope.requestedReplyTopic;
  let replyTopic = fallback;
  if (requested !== undefined) {
    const refusal = replyTopicRefusal(rules, partnerId, requested);
    if (refusal !== undefined) problems.push({ path: REPLY_TOPIC_PATH, reason: refusal });
    else if ((await partitionsOf(deps, requested)) === undefined) problems.push(missingTopicProblem());
    else replyTopic = requested;
    // A refused topic is answered on the default one, partitioned by the usual rule.
    if (replyTopic !== requested) return answered(fallback);
  }
  const partition = envelope.requestedReplyPartition;
  if (partition === undefined) return answered(replyTopic);
  const count = await partitionsOf(deps, replyTopic); // cached: the lookup above, or the default topic's
  const refusal = count === undefined ? undefined : replyPartitionRefusal(partition, count);
  if (refusal !== undefined) problems.push({ path: REPLY_PARTITION_PATH, reason: refusal });
  return answered(replyTopic, refusal === undefined && count !== undefined ? partition : undefined);
}

/** A topic's partition count, or undefined when the cluster does not know it; Kafka away → retried. */
export async function partitionsOf(deps: ProcessorDeps, topic: string): Promise<number | undefined> {
  try {
    return await deps.partitionCount(topic);
  } catch (error) {
    if (error instanceof TopicRefusedError) return undefined; // missing, or not writable by the service
    throw asRetriable(error);
  }
}
