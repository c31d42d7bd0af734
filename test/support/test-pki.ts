import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A certificate and its key, as files (for KAFKA_TLS_*) and as PEM text (for the broker's properties). */
export interface IssuedCertificate {
  readonly certFile: string;
  readonly keyFile: string;
  readonly certificate: string;
  readonly privateKey: string;
}

/**
 * A throw-away PKI made with `openssl` in a temporary folder at test time (never committed): a CA, a broker
 * certificate it signed for 127.0.0.1 and `brokerName` (not for `localhost`, so a test can reach the broker
 * by a name the certificate lacks), a client certificate it signed, and a second CA nobody trusts with a
 * certificate of its own.
 */
export interface TestPki {
  readonly ca: IssuedCertificate;
  readonly broker: IssuedCertificate;
  /** The broker's certificate followed by the CA's: what the broker presents. */
  readonly brokerChain: string;
  /** The name in the broker's certificate besides 127.0.0.1. */
  readonly brokerName: string;
  readonly client: IssuedCertificate;
  /** A CA that signed neither the broker's nor the client's certificate. */
  readonly otherCa: IssuedCertificate;
  /** A client certificate signed by `otherCa`. */
  readonly foreignClient: IssuedCertificate;
  dispose(): void;
}

export function createTestPki(brokerName = 'kafka.wholesale.test'): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'test-pki-'));
  const openssl = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], timeout: 30_000 });
  };
  const read = (name: string): IssuedCertificate => ({
    certFile: join(dir, `${name}.crt`),
    keyFile: join(dir, `${name}.key`),
    certificate: readFileSync(join(dir, `${name}.crt`), 'utf8'),
    privateKey: readFileSync(join(dir, `${name}.key`), 'utf8'),
  });
  const newKey = (name: string): void => openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', `${name}.key`);
  const selfSignedCa = (name: string, subject: string): IssuedCertificate => {
    newKey(name);
    openssl(
      'req',
      '-x509',
      '-new',
      '-key',
      `${name}.key`,
      '-subj',
      subject,
      '-days',
      '2',
      '-out',
      `${name}.crt`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
    return read(name);
  };
  const issue = (name: string, subject: string, ca: string, extensions: string): IssuedCertificate => {
    newKey(name);
    openssl('req', '-new', '-key', `${name}.key`, '-subj', subject, '-out', `${name}.csr`);
    writeFileSync(join(dir, `${name}.ext`), extensions);
    openssl('x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.crt`, '-CAkey', `${ca}.key`, '-CAcreateserial', '-days', '2', '-extfile', `${name}.ext`, '-out', `${name}.crt`);
    return read(name);
  };
  try {
    const ca = selfSignedCa('ca', '/CN=Wholesale test CA');
    const broker = issue(
      'broker',
      `/CN=${brokerName}`,
      'ca',
      `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:${brokerName}\n`,
    );
    const client = issue('client', '/CN=wholesale-svc', 'ca', 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n');
    const otherCa = selfSignedCa('other-ca', '/CN=Untrusted test CA');
    const foreignClient = issue('foreign-client', '/CN=wholesale-svc', 'other-ca', 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n');
    return {
      ca,
      broker,
      brokerChain: `${broker.certificate.trim()}\n${ca.certificate.trim()}\n`,
      brokerName,
      client,
      otherCa,
      foreignClient,
      dispose: () => rmSync(dir, { recursive: true, force: true }),
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
