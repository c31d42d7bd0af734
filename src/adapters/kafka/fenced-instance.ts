import { consumerHeartbeatChannel, type Consumer } from '@platformatic/kafka';
import { brokerErrorNames } from './kafka-error';

/** Raised when another member joined the group with this worker's static id: this one must stop. */
export class InstanceFencedError extends Error {
  constructor(
    readonly groupId: string,
    readonly groupInstanceId: string,
  ) {
    super(`KAFKA_GROUP_INSTANCE_ID ${groupInstanceId} is in use by another worker of group ${groupId}: Kafka fenced this one, which stops. Give every worker an id of its own`);
    this.name = 'InstanceFencedError';
  }
}

/**
 * Calls `onFenced` once when Kafka answers a heartbeat of `consumer` FENCED_INSTANCE_ID: a newer member
 * joined with the same group.instance.id (a copied manifest, a second worker given the id of a live one).
 * Kafka's own consumer takes that as fatal. @platformatic/kafka 2.12.1 takes it for a reason to rejoin
 * (errors.js ProtocolError `needsRejoin`, consumer.js `Consumer#getRejoinError`), and its rejoin under the
 * same id fences the newer member in turn: two workers that fence each other for ever. So the heartbeat's
 * failure is read from the client's public diagnostics channel, which reports it before the client acts on
 * it, and the member leaves at once: a member leaving is not rejoined (`#membershipActive`), and its leave
 * names its own fenced member id, which the broker refuses without touching the newer member.
 * Returns the unsubscribe.
 */
export function watchInstanceFenced(consumer: Consumer<Buffer, Buffer, Buffer, Buffer>, groupInstanceId: string, onFenced: (error: InstanceFencedError) => void): () => void {
  let fenced = false;
  const onError = (context: { client?: unknown; error?: unknown }): void => {
    if (fenced || context.client !== consumer || !brokerErrorNames(context.error).includes('FENCED_INSTANCE_ID')) return;
    fenced = true;
    // synchronously, before the client's own handler rejoins: leaving marks the membership inactive
    consumer.leaveGroup(true, () => undefined);
    onFenced(new InstanceFencedError(consumer.groupId, groupInstanceId));
  };
  consumerHeartbeatChannel.error.subscribe(onError as (message: unknown) => void);
  return () => consumerHeartbeatChannel.error.unsubscribe(onError as (message: unknown) => void);
}
