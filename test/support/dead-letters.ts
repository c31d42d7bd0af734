import type { ServiceConfig } from '../../src/app/config';
import { openRecord, type OpenedDeadLetter } from '../../src/cli/dead-letters';
import type { Reply } from './harness';

/** Opens a dead letter read by a TopicReader with the test service's key (the operator's `admin dlq decrypt` logic). */
export function openLetter(config: ServiceConfig, letter: Reply): OpenedDeadLetter {
  const key = config.deadLetters.encryptionKey;
  if (!key) throw new Error('the test service has no dead-letter key');
  return openRecord(
    { at: 'test', key: letter.key === null ? null : Buffer.from(letter.key), value: letter.rawValue, headers: letter.rawHeaders },
    new Map([[key.id, Buffer.from(key.key, 'base64')]]),
  );
}

/** An original header of an opened dead letter, as text. */
export const originalHeader = (opened: OpenedDeadLetter, name: string): string | undefined => {
  const found = opened.original?.headers.find(([header]) => header === name)?.[1];
  return found === undefined ? undefined : Buffer.isBuffer(found) ? found.toString('utf8') : String(found);
};
