import { ensureDevDeadLetterKey } from './dev-dead-letter-key';
import { createDevSigner, DEV_KEYS_DIR } from './dev-signer';

/**
 * What a shell needs to use the product CLI (`npx wholesale …`) against the dev stack as a node of the
 * customer hierarchy: the node (its partner's reply and event topics follow from it), a token signed with
 * the dev key, and the dev dead-letter key for `wholesale admin dlq decrypt`. The product CLI has no dev
 * options of its own: it reads these as any deployment's variables.
 */
export interface DevShellValues {
  customerId: string;
  token: string;
  deadLetterKey: { id: string; key: string };
}

const quoted = (value: string): string => `'${value.replaceAll("'", "'\\''")}'`;

export function devShellExports({ customerId, token, deadLetterKey }: DevShellValues): string[] {
  return [`export WHOLESALE_CUSTOMER_ID=${quoted(customerId)}`, `export WHOLESALE_TOKEN=${quoted(token)}`, `export DLQ_DECRYPTION_KEYS=${quoted(`${deadLetterKey.id}:${deadLetterKey.key}`)}`];
}

/** Long enough for a working session; `npm run dev:env` again makes a new one. */
export const DEV_SHELL_TOKEN_SECONDS = 12 * 3600;

export async function devShellEnv(customerId: string, dir = DEV_KEYS_DIR): Promise<string[]> {
  const signer = await createDevSigner({ dir });
  const token = await signer.sign(customerId, { ttlSeconds: DEV_SHELL_TOKEN_SECONDS });
  const { id, key } = ensureDevDeadLetterKey(dir);
  return devShellExports({ customerId, token, deadLetterKey: { id, key } });
}
