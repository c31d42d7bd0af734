import { createDevSigner, DEV_KEYS_DIR } from '../keys/dev-signer';

/**
 * Prints a dev token for a node of the customer hierarchy, signed with the dev key in .dev-keys/ (made on
 * first use): `npm run dev:token -- <wholesaleCustomerId> [ttlSeconds]`. For hand-made commands against
 * the dev stack (kcat, scripts); `npm run dev:env` exports one for the CLI, the demo signs its own.
 */
async function main(): Promise<void> {
  const [customerId, ttl] = process.argv.slice(2);
  if (!customerId) {
    process.stderr.write('usage: npm run dev:token -- <wholesaleCustomerId> [ttlSeconds]\n');
    process.exit(2);
  }
  const signer = await createDevSigner({ dir: DEV_KEYS_DIR });
  process.stdout.write(`${await signer.sign(customerId, { ttlSeconds: ttl ? Number(ttl) : undefined })}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
