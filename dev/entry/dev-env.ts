import { devShellEnv } from '../keys/dev-env';

/**
 * Prints the exports that let the product CLI act for a node of the customer hierarchy against the dev
 * stack: `eval "$(npm run -s dev:env -- <wholesaleCustomerId>)"`, then `npx wholesale …`.
 */
async function main(): Promise<void> {
  const [customerId] = process.argv.slice(2);
  if (!customerId) {
    process.stderr.write('usage: eval "$(npm run -s dev:env -- <wholesaleCustomerId>)"\n');
    process.exit(2);
  }
  process.stdout.write(`${(await devShellEnv(customerId)).join('\n')}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
