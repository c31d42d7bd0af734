import { randomUUID } from 'node:crypto';
import type { RunningService } from '../../src/app/service';
import { createBalanceComponents, type BalanceComponents } from '../../src/app/balance';
import type { ServiceConfig } from '../../src/app/config';
import { HEADER } from '../../src/contract/headers';
import { TestRequester, TopicReader, type Reply } from './harness';

/**
 * Balance commands over Kafka as a partner sends them, and the billing events topic as billing reads it.
 */
export const balanceRecord = (name: string) => `wholesale.balance.v1.${name}`;

export class BalanceClient {
  private constructor(
    readonly requester: TestRequester,
    private readonly reader: TopicReader,
    readonly events: Reply[],
  ) {}

  static async start(config: ServiceConfig): Promise<BalanceClient> {
    const events: Reply[] = [];
    const requester = await TestRequester.start(config);
    const reader = await TopicReader.start(config, [config.topics.balanceEvents], (event) => events.push(event));
    return new BalanceClient(requester, reader, events);
  }

  /** Sends a balance command for a wholesale customer (header omitted when undefined) and awaits the reply. */
  send(operation: string, command: object, wholesaleCustomerId: string | undefined, correlationId = randomUUID()): Promise<Reply> {
    const headers: Record<string, string> = wholesaleCustomerId === undefined ? {} : { [HEADER.wholesaleCustomerId]: wholesaleCustomerId };
    return this.requester.send('balanceCommands', balanceRecord(operation), command, { headers, correlationId });
  }

  /** Waits until the events topic holds a record matching the predicate. */
  async event(predicate: (event: Reply) => boolean, timeoutMs = 20000): Promise<Reply> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error('the expected event did not arrive');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async stop(): Promise<void> {
    await this.reader.stop();
    await this.requester.stop();
  }
}

/** The balance stores over the running service's Redis, with the service's own configuration. */
export const balanceComponentsOf = (service: RunningService, config: ServiceConfig): BalanceComponents => createBalanceComponents({ config, catalog: service.catalog, redis: service.redis });
