import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDevSigner, devAuthEnv } from '../dev/keys/dev-signer';
import { devDeadLetterEnv } from '../dev/keys/dev-dead-letter-key';

/**
 * The bench runs the service as production would: AUTH_MODE=jwt (a dev key pair made for the run, its
 * JWKS file given to the worker), a customer hierarchy of one partner whose nodes own the subscriptions,
 * and the per-partner rate limiter on — with a limit far above what the machine can do, so it is paid
 * for on every command (one Redis script) but never refuses one.
 */
export const BENCH_PARTNER = 'BENCHP';

export interface BenchAuth {
  /** Worker settings: AUTH_*, DLQ_ENCRYPTION_KEY*, CUSTOMERS_FILE, RATE_LIMIT_*. */
  env: Record<string, string>;
  /** The client's token provider: a token of the partner, which acts for its nodes by the wholesaleCustomerId header. */
  tokenProvider: () => Promise<string>;
}

export async function benchAuth(dir: string, customers: readonly string[]): Promise<BenchAuth> {
  const signer = await createDevSigner({ dir: join(dir, 'keys') });
  const customersFile = join(dir, 'customers.json');
  writeFileSync(customersFile, JSON.stringify({ partners: [{ id: BENCH_PARTNER, name: 'Benchmark partner', nodes: customers.map((id) => ({ id })) }] }));
  return {
    env: { ...devAuthEnv(signer.keys), ...devDeadLetterEnv(join(dir, 'keys')), CUSTOMERS_FILE: customersFile, RATE_LIMIT_PER_SECOND: '1000000' },
    tokenProvider: signer.tokenProvider(BENCH_PARTNER, { ttlSeconds: 6 * 3600 }),
  };
}
