import { isPortStatus } from '../../domain/portin/lifecycle';
import type { PortInRequest } from '../../domain/portin/request';
import type { RecordedOutcome } from '../../handlers/portin/ports';

/**
 * A port-in request as flat hash fields: scalars as strings, portInfo/secrets/createReply as JSON.
 * Optional fields that are absent are deleted from the hash rather than written empty.
 */
const JSON_FIELDS = ['portInfo', 'secrets', 'createReply'] as const;
const OPTIONAL_FIELDS = [
  'portOrderId',
  'reasonCode',
  'reasonDescription',
  'remarks',
  'confirmedDueDate',
  'oldNetworkServiceProvider',
  'oldLocalServiceProvider',
  'correlationId',
  'statusBeforeCancel',
] as const;
const REQUIRED_FIELDS = [
  'requestId',
  'wholesaleCustomerId',
  'gpsi',
  'partnerTransactionId',
  'subscriberId',
  'portStatus',
  'desiredDueDate',
  'portDirection',
  'portOriginalSubmissionDate',
  'portLastUpdateDate',
  'statusSince',
  'newNetworkServiceProvider',
  'newLocalServiceProvider',
  'payloadHash',
] as const;

export function toHash(request: PortInRequest): { fields: Record<string, string>; absent: string[] } {
  const fields: Record<string, string> = { portOrderVersion: String(request.portOrderVersion) };
  for (const name of REQUIRED_FIELDS) fields[name] = request[name];
  for (const name of JSON_FIELDS) fields[name] = JSON.stringify(request[name]);
  const absent: string[] = [];
  for (const name of OPTIONAL_FIELDS) {
    const value = request[name];
    if (value === undefined) absent.push(name);
    else fields[name] = value;
  }
  return { fields, absent };
}

export class CorruptRequestError extends Error {
  constructor(detail: string) {
    super(`stored port-in request is unreadable: ${detail}`);
    this.name = 'CorruptRequestError';
  }
}

export function fromHash(hash: Record<string, string>): PortInRequest {
  for (const name of [...REQUIRED_FIELDS, ...JSON_FIELDS, 'portOrderVersion']) {
    if (typeof hash[name] !== 'string') throw new CorruptRequestError(`${name} missing`);
  }
  if (!isPortStatus(hash.portStatus)) throw new CorruptRequestError(`portStatus ${hash.portStatus}`);
  const request = {
    ...Object.fromEntries(REQUIRED_FIELDS.map((name) => [name, hash[name]])),
    portOrderVersion: Number(hash.portOrderVersion),
    portInfo: JSON.parse(hash.portInfo) as PortInRequest['portInfo'],
    secrets: JSON.parse(hash.secrets) as PortInRequest['secrets'],
    createReply: JSON.parse(hash.createReply) as PortInRequest['createReply'],
  } as PortInRequest;
  for (const name of OPTIONAL_FIELDS) {
    if (typeof hash[name] === 'string') (request as unknown as Record<string, string>)[name] = hash[name];
  }
  if (request.statusBeforeCancel !== undefined && !isPortStatus(request.statusBeforeCancel)) throw new CorruptRequestError(`statusBeforeCancel ${request.statusBeforeCancel}`);
  return request;
}

/** ioredis returns HGETALL from a script as a flat [field, value, …] array. */
export function pairsToHash(flat: string[]): Record<string, string> {
  const hash: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) hash[flat[i]] = flat[i + 1];
  return hash;
}

/**
 * The recorded outcome of a cause, as JSON. Format 2 (`"v":2`) names the command that made the change and
 * its payload's fingerprint (`by`): a port-in command replays from this record. Format 1, the record as
 * written before (no `v`), is the same outcome without `by`; it is still read, and replayed as it is.
 */
export const OUTCOME_FORMAT = 2;

export function encodeRecordedOutcome(outcome: RecordedOutcome): string {
  return JSON.stringify({ v: OUTCOME_FORMAT, ...outcome });
}

export function decodeRecordedOutcome(stored: string): RecordedOutcome {
  const { v, ...outcome } = JSON.parse(stored) as RecordedOutcome & { v?: number };
  if (v !== undefined && v !== OUTCOME_FORMAT) throw new CorruptRequestError(`recorded outcome in unknown format ${v}`);
  if (!Array.isArray(outcome.messages) || !Array.isArray(outcome.followUps)) throw new CorruptRequestError('recorded outcome without messages or follow-ups');
  return outcome;
}
