import type { Consumer, ConsumerConfig, Kafka } from 'kafkajs';
import { installCoordinatorRediscovery } from './coordinator-rediscovery';
import { installStoppedFetchGuard } from './stopped-fetch-guard';

/**
 * kafkajs's disconnect() waits for the fetch in flight to come back (tulios/kafkajs#1606; the fix, PR
 * #1655, was never merged), and an idle fetch is held by the broker for maxWaitTimeInMs — 5 s by default.
 * Every consumer here long-polls for at most this unless its caller says otherwise, so closing one (a
 * client, the simulator, a CLI read) takes about half a second, not five.
 */
export const DEFAULT_FETCH_MAX_WAIT_MS = 500;

/**
 * A kafkajs consumer that stays closed once disconnect() was called. After a retriable crash kafkajs
 * disconnects, asks restartOnFailure, emits CRASH, and only then sets its restart timer. A disconnect()
 * made before that timer exists — from a CRASH listener (ReplyListener.start fails this way), or while the
 * crash handler's own disconnect waits on a hung broker — cleared nothing, and the consumer started again
 * afterwards, restarting for as long as the process lived once the cluster was gone (a closed client whose
 * process never exits). Here restartOnFailure says no once disconnect() was called, and disconnect() ends
 * with a stop() that clears a timer set while it ran. Its commits and heartbeats follow the group's
 * coordinator when the broker holding it dies (coordinator-rediscovery.ts), and once stopped its fetchers
 * cannot spin on a broker's departure (stopped-fetch-guard.ts).
 */
export function createConsumer(kafka: Kafka, config: ConsumerConfig): Consumer {
  installCoordinatorRediscovery();
  installStoppedFetchGuard();
  let closing = false;
  const ownRestart = config.retry?.restartOnFailure;
  const consumer = kafka.consumer({
    maxWaitTimeInMs: DEFAULT_FETCH_MAX_WAIT_MS,
    ...config,
    retry: { ...config.retry, restartOnFailure: async (error) => !closing && (ownRestart ? await ownRestart(error) : true) },
  });
  const disconnect = consumer.disconnect.bind(consumer);
  consumer.disconnect = async () => {
    closing = true;
    await disconnect();
    await consumer.stop();
  };
  return consumer;
}
