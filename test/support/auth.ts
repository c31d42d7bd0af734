import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDevSigner, devAuthEnv, type DevSigner } from '../../dev/keys/dev-signer';

/**
 * Authentication for integration tests, the way the dev stack does it: a key pair made by the dev signer
 * (in a temporary folder of the test file, not .dev-keys/), its JWKS file given to the service, and a
 * customer hierarchy file of two partners:
 *   alpha ─┬─ alpha-b1 ── alpha-b1x
 *          └─ alpha-b2
 *   beta  ─── beta-b1
 */
export const TEST_CUSTOMERS = {
  partners: [
    { id: 'alpha', name: 'Alpha Mobile', nodes: [{ id: 'alpha-b1', nodes: [{ id: 'alpha-b1x' }] }, { id: 'alpha-b2' }] },
    { id: 'beta', name: 'Beta Wireless', nodes: [{ id: 'beta-b1' }] },
  ],
};

export interface TestAuth {
  /** Settings for testConfig(): AUTH_MODE=jwt with the test key, the hierarchy file. */
  env: Record<string, string>;
  signer: DevSigner;
  /** Removes the keys and the hierarchy file. */
  cleanup(): void;
}

export async function testAuth(customers: object = TEST_CUSTOMERS): Promise<TestAuth> {
  const dir = mkdtempSync(join(tmpdir(), 'auth-test-'));
  const signer = await createDevSigner({ dir: join(dir, 'keys') });
  const customersFile = join(dir, 'customers.json');
  writeFileSync(customersFile, JSON.stringify(customers));
  return {
    env: { ...devAuthEnv(signer.keys), CUSTOMERS_FILE: customersFile },
    signer,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
