import type { ServiceConfig } from './config';
import type { DeadLetterSink } from '../pipeline/outbound';

/** The DLQ topic and the configured sealing key (none with AUTH_MODE=none and no DLQ_ENCRYPTION_KEY: bodies are dropped). */
export function deadLetterSink(config: ServiceConfig): DeadLetterSink {
  const configured = config.deadLetters.encryptionKey;
  if (!configured) return { topic: config.topics.deadLetters };
  return { topic: config.topics.deadLetters, key: { id: configured.id, secret: Buffer.from(configured.key, 'base64') } };
}
