import { randomBytes } from 'node:crypto';

/**
 * A partner's webhook registration: where its events go and the secrets they are signed with. Stored as
 * JSON with a format number; a reader of format N reads every earlier format (format 1 is the first).
 * Rotation adds a secret and keeps the previous one valid until its `expiresAt`, so a receiver that still
 * verifies with the old secret keeps accepting deliveries (both signatures are sent meanwhile).
 */
export const REGISTRATION_FORMAT = 1;

export interface WebhookSecret {
  /** `whsec_` + base64 of 24 random bytes (Standard Webhooks). */
  secret: string;
  createdAt: string;
  /** Set on the previous secret by a rotation: signatures with it are sent until then. */
  expiresAt?: string;
}

export interface WebhookRegistration {
  format: typeof REGISTRATION_FORMAT;
  partnerId: string;
  url: string;
  /** Newest first. */
  secrets: WebhookSecret[];
  createdAt: string;
  updatedAt: string;
  rotatedAt?: string;
}

export const newSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/** Every problem of an endpoint URL: HTTPS only, plain HTTP only when the setting allows it (dev, tests). */
export function endpointUrlProblems(raw: string, allowHttp: boolean): string[] {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return [`${JSON.stringify(raw)} is not a URL`];
  }
  const problems: string[] = [];
  if (url.protocol === 'http:' && !allowHttp) problems.push('the URL must be https:// (http:// only with WEBHOOK_ALLOW_HTTP=true, for development)');
  else if (url.protocol !== 'https:' && url.protocol !== 'http:') problems.push(`the URL must be https://, not ${url.protocol}//`);
  if (url.username !== '' || url.password !== '') problems.push('the URL must not carry credentials: deliveries are authenticated by their signature');
  return problems;
}

/** A new registration, or the same one with a new URL (secrets kept). */
export function setEndpoint(existing: WebhookRegistration | undefined, partnerId: string, url: string, now: Date): WebhookRegistration {
  const at = now.toISOString();
  if (existing) return { ...existing, url, updatedAt: at };
  return { format: REGISTRATION_FORMAT, partnerId, url, secrets: [{ secret: newSecret(), createdAt: at }], createdAt: at, updatedAt: at };
}

/** Adds a new secret; the current one stays valid for `graceMs`; secrets already expired are dropped. */
export function rotateSecret(registration: WebhookRegistration, now: Date, graceMs: number): WebhookRegistration {
  const at = now.toISOString();
  const until = new Date(now.getTime() + graceMs).toISOString();
  const kept = activeSecrets(registration, now).map((s) => ({ ...s, expiresAt: s.expiresAt !== undefined && s.expiresAt < until ? s.expiresAt : until }));
  return { ...registration, secrets: [{ secret: newSecret(), createdAt: at }, ...kept], rotatedAt: at, updatedAt: at };
}

/** The secrets deliveries are signed with at `now`: the newest and those still in their grace period. */
export const activeSecrets = (registration: WebhookRegistration, now: Date): WebhookSecret[] =>
  registration.secrets.filter((s) => s.expiresAt === undefined || Date.parse(s.expiresAt) > now.getTime());

export class RegistrationFormatError extends Error {
  constructor(readonly problems: string[]) {
    super(`unreadable webhook registration: ${problems.join('; ')}`);
    this.name = 'RegistrationFormatError';
  }
}

const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';

/** Reads a stored registration, listing every problem when it is not one this reader knows. */
export function parseRegistration(json: string): WebhookRegistration {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(json) as Record<string, unknown>;
  } catch (error) {
    throw new RegistrationFormatError([`not JSON: ${(error as Error).message}`]);
  }
  const problems: string[] = [];
  if (typeof value !== 'object' || value === null) throw new RegistrationFormatError(['not an object']);
  if (value.format !== REGISTRATION_FORMAT) problems.push(`format ${JSON.stringify(value.format)} is not one this reader knows (up to ${REGISTRATION_FORMAT})`);
  for (const field of ['partnerId', 'url', 'createdAt', 'updatedAt'] as const) if (!isText(value[field])) problems.push(`${field} is missing`);
  const secrets = value.secrets;
  if (!Array.isArray(secrets) || secrets.length === 0) problems.push('secrets is missing or empty');
  else
    secrets.forEach((s: Record<string, unknown>, i) => {
      if (!isText(s?.secret) || !s.secret.startsWith('whsec_')) problems.push(`secrets[${i}].secret is not a whsec_ secret`);
      if (!isText(s?.createdAt)) problems.push(`secrets[${i}].createdAt is missing`);
    });
  if (problems.length > 0) throw new RegistrationFormatError(problems);
  return value as unknown as WebhookRegistration;
}
