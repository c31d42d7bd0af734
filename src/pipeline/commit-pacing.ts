import type { Logger } from 'pino';
import type { BatchContext } from '../contract/transport';

/**
 * The batch worker's commit pacing (at least once): resolved offsets are committed at most every
 * `intervalMs` (0: after every batch) — by the next batch that ends after the interval, or by a timer when
 * none comes — and always before the worker leaves the group. Under load a commit per batch would be as many
 * Kafka requests as the replies themselves; a redelivery after a crash is answered from the changes'
 * recorded outcomes, so the interval bounds only how much is replayed.
 */
export type Committer = Pick<BatchContext, 'commitOffsetsIfNecessary' | 'uncommittedOffsets'>;

export class CommitPacing {
  private lastCommit = 0;
  private timer?: NodeJS.Timeout;
  /** Commits what the consumer holds as resolved and not yet committed (any batch's payload reaches the same group). */
  private committer?: Committer;

  constructor(
    private readonly intervalMs: number,
    private readonly log: Logger,
  ) {}

  /** Commits resolved offsets when the interval has passed, else makes sure a timer will. */
  async commit(committer: Committer): Promise<void> {
    this.committer = committer;
    const due = this.lastCommit + this.intervalMs - Date.now();
    if (due <= 0) return this.commitResolved();
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.commitResolved().catch((error) => this.log.warn({ err: (error as Error).message }, 'deferred offset commit failed; the next batch commits'));
    }, due);
  }

  /** The last commit before leaving: no timer left behind. */
  async final(): Promise<void> {
    clearTimeout(this.timer);
    await this.commitResolved();
  }

  private async commitResolved(): Promise<void> {
    const committer = this.committer;
    if (!committer) return;
    this.lastCommit = Date.now();
    const pending = committer.uncommittedOffsets();
    if (pending.topics.length > 0) await committer.commitOffsetsIfNecessary(pending);
  }
}
