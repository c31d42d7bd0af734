import { Admin } from '@platformatic/kafka';
import { clientOptions, type KafkaConnection } from './connection';

/**
 * The cluster's topics that `matches` accepts, listed now and again every `intervalMs` (as a Java consumer's
 * pattern subscription re-reads metadata every metadata.max.age.ms; @platformatic/kafka has no pattern
 * subscription). `onChange` hears the sorted list each time it differs from the last one heard; a listing
 * that fails is logged and tried again at the next tick.
 */
export interface TopicWatch {
  /** The list found by the first listing. */
  readonly initial: string[];
  stop(): Promise<void>;
}

export async function watchTopics(
  connection: KafkaConnection,
  options: { matches: (topic: string) => boolean; intervalMs: number; onChange: (topics: string[]) => Promise<void> },
): Promise<TopicWatch> {
  const admin = new Admin(clientOptions(connection, 'topic-watch'));
  const list = async () => (await admin.listTopics()).filter(options.matches).sort();
  let known: string[];
  try {
    known = await list();
  } catch (error) {
    await admin.close();
    throw error;
  }
  const initial = known;
  let stopped = false;
  let tick: Promise<void> | undefined;
  const look = async () => {
    try {
      const found = await list();
      if (stopped || (found.length === known.length && found.every((topic, i) => topic === known[i]))) return;
      known = found;
      await options.onChange(found);
    } catch (error) {
      connection.log.warn({ err: (error as Error).message }, 'could not list the topics to consume; trying again');
    }
  };
  const timer = setInterval(() => {
    // one listing at a time: a slow cluster skips ticks rather than queueing them
    tick ??= look().finally(() => (tick = undefined));
  }, options.intervalMs);
  timer.unref();
  return {
    initial,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await tick;
      await admin.close().catch(() => undefined);
    },
  };
}
