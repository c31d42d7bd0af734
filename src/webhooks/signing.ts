import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks signing: `webhook-signature` holds one `v1,<base64 HMAC-SHA256 of id.timestamp.body>`
 * per active secret, separated by spaces — during a rotation a receiver verifies with either secret.
 * `webhook-id` is the event id (stable across retries: the receiver's idempotency key).
 */
export interface SignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export function signatureHeaders(eventId: string, at: Date, body: string, secrets: readonly string[]): SignatureHeaders {
  if (secrets.length === 0) throw new Error('no secret to sign with');
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(eventId, at, body)).join(' '),
  };
}
