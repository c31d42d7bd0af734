import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JwtAuthSettings } from '../../src/config/auth';
import { RetriableError, ServiceError } from '../../src/contract/errors';
import { createDevSigner, DEV_ISSUER, ensureDevKeys } from '../../dev/keys/dev-signer';
import { createJwtAuthenticator } from '../../src/security/jwt-authenticator';
import { readJwksFile, tokenKeysFrom } from '../../src/security/token-keys';

/** The key sources that touch files and the network: the dev key pair, a JWKS file (rotation), a JWKS URL. */
describe('token keys from files and URLs', () => {
  let dir: string;
  const settings = (keys: JwtAuthSettings['keys']): JwtAuthSettings => ({
    mode: 'jwt',
    keys,
    issuer: DEV_ISSUER,
    audience: 'wholesale-portin-balance',
    clockToleranceSeconds: 5,
    customerClaim: 'wholesaleCustomerId',
  });
  const refusal = async (run: () => Promise<unknown>) => {
    try {
      await run();
      return 'accepted';
    } catch (error) {
      if (error instanceof ServiceError) return error.code;
      if (error instanceof RetriableError) return 'retriable';
      throw error;
    }
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'token-keys-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the dev key pair is made once (also by concurrent processes), private half 0600, public half a valid JWKS', async () => {
    const keysDir = join(dir, 'dev');
    const [a, b] = await Promise.all([ensureDevKeys(keysDir), ensureDevKeys(keysDir)]);
    expect(a.kid).toBe(b.kid);
    expect((await ensureDevKeys(keysDir)).kid).toBe(a.kid);
    expect(statSync(a.privateKeyFile).mode & 0o777).toBe(0o600);
    const jwks = readJwksFile(a.jwksFile);
    expect(jwks.keys).toEqual([expect.objectContaining({ kid: a.kid, alg: 'ES256', use: 'sig', kty: 'EC', crv: 'P-256' })]);
    expect(JSON.stringify(jwks)).not.toContain('"d"');
  });

  it('a JWKS file holding a private key, or no key, stops the start', () => {
    const withPrivate = join(dir, 'private.json');
    writeFileSync(withPrivate, JSON.stringify({ keys: [JSON.parse(readFileSync(join(dir, 'dev', 'signing-key.jwk.json'), 'utf8'))] }));
    expect(() => tokenKeysFrom({ kind: 'jwks-file', file: withPrivate })).toThrow(/holds a private key/);
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, '{"keys":[]}');
    expect(() => tokenKeysFrom({ kind: 'jwks-file', file: empty })).toThrow(/at least one public key/);
  });

  it('rotating keys is replacing the JWKS file: a token of the new key is accepted without a restart', async () => {
    const oldSigner = await createDevSigner({ dir: join(dir, 'old') });
    const newSigner = await createDevSigner({ dir: join(dir, 'new') });
    const file = join(dir, 'rotating-jwks.json');
    copyFileSync(oldSigner.keys.jwksFile, file);
    const keys = { kind: 'jwks-file' as const, file };
    const auth = createJwtAuthenticator(settings(keys), tokenKeysFrom(keys, { fileReloadCooldownMs: 0 }));
    expect(await auth.authenticate(`Bearer ${await oldSigner.sign('alpha')}`)).toMatchObject({ customerId: 'alpha' });
    expect(await refusal(async () => auth.authenticate(`Bearer ${await newSigner.sign('alpha')}`))).toBe('UNAUTHORIZED');
    await new Promise((resolve) => setTimeout(resolve, 20)); // a later modification time
    copyFileSync(newSigner.keys.jwksFile, file);
    expect(await auth.authenticate(`Bearer ${await newSigner.sign('beta')}`)).toMatchObject({ customerId: 'beta' });
    expect(await refusal(async () => auth.authenticate(`Bearer ${await oldSigner.sign('alpha', { subject: 'fresh' })}`))).toBe('UNAUTHORIZED');
  });

  describe('a JWKS URL', () => {
    let server: Server;
    let url: string;
    let answer: { status: number; body: string };

    beforeAll(async () => {
      server = createServer((_request, response) => response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('verifies tokens with the fetched keys; an identity provider that is down is retried, not a refusal', async () => {
      const signer = await createDevSigner({ dir: join(dir, 'url') });
      const token = `Bearer ${await signer.sign('alpha')}`;
      const keys = { kind: 'jwks-url' as const, url };
      answer = { status: 503, body: 'down' };
      const failing = createJwtAuthenticator(settings(keys), tokenKeysFrom(keys, { fetchTimeoutMs: 2000 }));
      expect(await refusal(() => failing.authenticate(token))).toBe('retriable');
      answer = { status: 200, body: readFileSync(signer.keys.jwksFile, 'utf8') };
      const working = createJwtAuthenticator(settings(keys), tokenKeysFrom(keys));
      expect(await working.authenticate(token)).toMatchObject({ customerId: 'alpha' });
      const stranger = await createDevSigner({ dir: join(dir, 'stranger') });
      expect(await refusal(async () => working.authenticate(`Bearer ${await stranger.sign('alpha')}`))).toBe('UNAUTHORIZED');
    });
  });
});
