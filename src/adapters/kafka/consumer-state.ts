import type { Consumer, ConsumerGroupJoinPayload } from '@platformatic/kafka';
import type { ConsumerMembership, ConsumerState } from '../../contract/transport';

/**
 * What the consumer's group events say about its membership: joined (with its assignment) after a join,
 * not joined while rebalancing, after leaving or closing, and — with the error — once the member gave up
 * for good (the process is then alive but useless: reported as not live).
 */
export class ConsumerStateTracker implements ConsumerMembership {
  private current: ConsumerState = { joined: false, assignment: {}, lastEvent: 'none' };

  constructor(consumer: Pick<Consumer, 'on'>) {
    consumer.on('consumer:group:join', (payload: ConsumerGroupJoinPayload) => {
      const assignment: Record<string, number[]> = {};
      for (const { topic, partitions } of payload.assignments ?? []) assignment[topic] = [...partitions];
      this.current = { joined: true, assignment, memberId: payload.memberId, lastEvent: 'group join' };
    });
    consumer.on('consumer:group:rebalance', () => this.leave('rebalancing'));
    consumer.on('consumer:group:leave', () => this.leave('left the group'));
    consumer.on('client:close', () => this.leave('disconnected'));
  }

  /** The member stopped for good (it will not consume again). */
  failed(error: Error): void {
    this.leave('crashed');
    this.current.fatalError = error.message;
  }

  /** The member lost its stream and is consuming again. */
  restarting(): void {
    this.leave('crashed, restarting');
  }

  private leave(event: string): void {
    this.current = { ...this.current, joined: false, assignment: {}, lastEvent: event };
  }

  get state(): Readonly<ConsumerState> {
    return this.current;
  }

  get assignedPartitions(): number {
    return Object.values(this.current.assignment).reduce((sum, partitions) => sum + partitions.length, 0);
  }
}
