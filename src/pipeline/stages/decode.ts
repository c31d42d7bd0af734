import { DecodeError, type DecodedRecord } from '../../contract/codec';
import type { HandlerRegistration } from '../../contract/handlers';
import type { Domain } from '../../contract/topics';
import type { RecordPosition } from '../../contract/transport';
import type { RoutedEnvelope } from '../envelope';
import { deadLetter } from './answer';
import { shortName, type CommandRecord, type ProcessOutcome, type ProcessorDeps } from './context';

/**
 * Decoding: the size limit, the Avro value (Confluent wire format, schema from the registry) and the
 * handler registered for its record in the record's domain. What fails here is poison: dead-lettered, and
 * answered BAD_REQUEST when the requester sent a correlation id to match it by.
 */
export interface Decoded {
  decoded: DecodedRecord;
  registration: HandlerRegistration;
  /** The record name without its namespace, e.g. `CreatePortIn`. */
  operation: string;
}

/** Key, value and headers: everything a hostile sender could inflate. */
function messageBytes(record: CommandRecord): number {
  let size = (record.value?.length ?? 0) + (record.key?.length ?? 0);
  for (const [name, raw] of Object.entries(record.headers ?? {})) {
    for (const value of Array.isArray(raw) ? raw : [raw]) size += name.length + (value?.length ?? 0);
  }
  return size;
}

export async function decode(deps: ProcessorDeps, domain: Domain, record: CommandRecord, position: RecordPosition, envelope: RoutedEnvelope): Promise<Decoded | ProcessOutcome> {
  const size = messageBytes(record);
  if (size > deps.maxMessageBytes) {
    return deadLetter(deps, domain, record, position, envelope, { reason: 'TOO_LARGE', detail: `message is ${size} bytes, the limit is ${deps.maxMessageBytes}` });
  }
  let decoded: DecodedRecord;
  try {
    decoded = await deps.codec.decode(record.value);
  } catch (error) {
    if (error instanceof DecodeError) return deadLetter(deps, domain, record, position, envelope, { reason: error.reason, detail: error.message, diagnostic: error.diagnostic });
    throw error;
  }
  const registration = deps.handlers.get(decoded.recordName);
  if (!registration || registration.domain !== domain) {
    return deadLetter(deps, domain, record, position, envelope, { reason: 'NO_HANDLER', detail: `no ${domain} handler for record ${decoded.recordName}` }, decoded.recordName);
  }
  return { decoded, registration, operation: shortName(decoded.recordName) };
}
