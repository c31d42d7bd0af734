import { sha256Hex } from '../digest';

/**
 * Deterministic identities derived from their cause, so a replayed command, NP response or expiry yields
 * the same request id, outcome key and CloudEvents id instead of a new one.
 */
/** A UUID-shaped (version 8, RFC 9562 "custom") id derived from the given parts. */
export function derivedUuid(...parts: string[]): string {
  const hex = sha256Hex(parts.join('\u0000'));
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** JSON with object keys sorted and null/undefined members dropped, so equal payloads hash equal. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== null && v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Fingerprint of a command's payload: a retry with the same payload is recognised, a different one is not. */
export const payloadFingerprint = (payload: unknown): string => sha256Hex(canonicalJson(payload));

/** The id of the port-in request a CreatePortIn makes: stable across redeliveries of that command. */
export const requestIdFor = (commandId: string): string => derivedUuid('port-in-request', commandId);

/** Cause ids name what changed a request; they key the recorded outcome and seed event ids. */
export const causeIds = {
  command: (commandId: string): string => `cmd:${commandId}`,
  /** A creation is keyed by the request it makes, shared by every command continuing the same claim. */
  creation: (requestId: string): string => `create:${requestId}`,
  npResponse: (responseId: string): string => `np:${sha256Hex(responseId).slice(0, 32)}`,
  expiry: (requestId: string, version: number): string => `expiry:${requestId}:${version}`,
};
