import type { Consumer } from 'kafkajs';
import type { ConsumerMembership, ConsumerState } from '../../contract/transport';

/**
 * What the consumer's instrumentation events say about its group membership: joined (with its
 * assignment) after GROUP_JOIN, not joined while rebalancing, stopped or crashed. A crash kafkajs does
 * not restart from leaves the process alive but useless: that is reported as not live.
 */
export class ConsumerStateTracker implements ConsumerMembership {
  private current: ConsumerState = { joined: false, assignment: {}, lastEvent: 'none' };

  constructor(consumer: Consumer) {
    const { GROUP_JOIN, REBALANCING, CRASH, STOP, DISCONNECT } = consumer.events;
    consumer.on(GROUP_JOIN, ({ payload }) => {
      this.current = { joined: true, assignment: payload.memberAssignment, memberId: payload.memberId, lastEvent: 'group join' };
    });
    consumer.on(REBALANCING, () => this.leave('rebalancing'));
    consumer.on(STOP, () => this.leave('stopped'));
    consumer.on(DISCONNECT, () => this.leave('disconnected'));
    consumer.on(CRASH, ({ payload }) => {
      this.leave(payload.restart ? 'crashed, restarting' : 'crashed');
      if (!payload.restart) this.current.fatalError = payload.error?.message ?? String(payload.error);
    });
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
