import { ClientClosedError, RequestTimeoutError } from './errors';

/**
 * The calls waiting for their reply, by correlation id. Each has its own timer; whatever settles first
 * (reply, timeout, failure, close) wins and removes the entry, so a late or repeated reply finds nothing
 * and is ignored.
 */
interface Waiting<R> {
  operation: string;
  resolve: (reply: R) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout;
}

export class PendingReplies<R> {
  private readonly waiting = new Map<string, Waiting<R>>();

  get size(): number {
    return this.waiting.size;
  }

  has(correlationId: string): boolean {
    return this.waiting.has(correlationId);
  }

  /** Starts waiting; the promise rejects with RequestTimeoutError after `timeoutMs`. */
  wait(operation: string, correlationId: string, timeoutMs: number): Promise<R> {
    if (this.waiting.has(correlationId)) {
      return Promise.reject(new Error(`${operation}: a call with X-Correlation-Id ${correlationId} is already waiting`));
    }
    return new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => this.fail(correlationId, new RequestTimeoutError(operation, correlationId, timeoutMs)), timeoutMs);
      this.waiting.set(correlationId, { operation, resolve, reject, timer });
    });
  }

  /** The operation a waiting call made, or undefined when nobody waits for this id. */
  operationOf(correlationId: string): string | undefined {
    return this.waiting.get(correlationId)?.operation;
  }

  resolve(correlationId: string, reply: R): boolean {
    const entry = this.take(correlationId);
    entry?.resolve(reply);
    return entry !== undefined;
  }

  fail(correlationId: string, error: unknown): boolean {
    const entry = this.take(correlationId);
    entry?.reject(error);
    return entry !== undefined;
  }

  /** Rejects every waiting call (the client is closing). */
  close(): void {
    for (const id of [...this.waiting.keys()]) this.fail(id, new ClientClosedError(this.waiting.get(id)?.operation ?? 'call'));
  }

  private take(correlationId: string): Waiting<R> | undefined {
    const entry = this.waiting.get(correlationId);
    if (entry === undefined) return undefined;
    clearTimeout(entry.timer);
    this.waiting.delete(correlationId);
    return entry;
  }
}
