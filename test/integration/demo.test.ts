import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { envFor } from '../support/harness';
import { startTestSimulator } from '../support/client';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { useService } from '../support/service-fixture';

/** `npm run demo` as a newcomer runs it, against a service and the NP simulator (here in-process, on the test's topics). */
const ROOT = join(__dirname, '..', '..');

describe('npm run demo', () => {
  let gateway: TestGateway;

  const fx = useService();

  beforeAll(async () => {
    fx.track(await startTestSimulator(fx.config));
    gateway = fx.track(await startTestGateway(fx.config));
  });

  it('runs the whole journey and prints every step with its reply', async () => {
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(ROOT, 'dev', 'entry', 'demo.ts'), '--wait', '60', '--gateway', gateway.url], {
        cwd: ROOT,
        env: { ...process.env, ...envFor(fx.config), LOG_LEVEL: 'error' },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const headings = run.stdout.split('\n').filter((line) => line.startsWith('── '));
    expect(headings).toHaveLength(14);
    expect(headings[12]).toContain('A port order');
    expect(headings[13]).toContain('HTTP: the same service through the gateway');
    for (const operation of [
      'CheckPortInEligibility',
      'CreatePortIn',
      'CancelPortIn',
      'QueryPortIn',
      'QueryBalances',
      'AddBuckets',
      'SwapPrimaryBucket',
      'UpdateBalances',
      'QueryBalanceHistory',
      'CreatePortOrder',
      'QueryPortOrder',
    ]) {
      expect(run.stdout).toContain(`  → ${operation} `);
    }
    expect(run.stdout).toContain('error BAD_REQUEST');
    expect(run.stdout).toMatch(/⚡ event PortInActivationEvent .* → CONFIRMED/);
    expect(run.stdout).toMatch(/⚡ event PortInActivationEvent .* → COMPLETED/);
    expect(run.stdout).toContain('⚡ event SubscriptionActivated');
    // the port-in the old provider never answers, cancelled through the NP side
    expect(run.stdout).toMatch(/⚡ event PortInActivationEvent .*\d{9}00 portStatus OPEN → CANCEL_PENDING \(CP Cancelled by the partner\)/);
    expect(run.stdout).toMatch(/⚡ event PortInActivationEvent .*\d{9}00 portStatus CANCEL_PENDING → CANCELLED/);
    // the port order: the number already ours refused, the four others completed
    expect(run.stdout).toMatch(/⚡ event PortOrderEvent .*CREATED: 4 created, 1 refused/);
    expect(run.stdout).toMatch(/orderStatus: +PARTIALLY_COMPLETED/);
    expect(run.stdout).toMatch(/\nDone: \d+ events seen for \d+\./);
    // the HTTP part: the port-in read back over HTTP, and the retried change answered with the same reply
    expect(run.stdout).toMatch(/→ GET \/portins\?gpsi=\d+\n {2}← 200 \{"status":"Success"/);
    const patched = run.stdout.split('\n').filter((_line, i, lines) => lines[i - 1]?.startsWith('  → PATCH /balances'));
    expect(patched).toHaveLength(2);
    expect(patched[0]).toMatch(/^ {2}← 200 /);
    expect(patched[1]).toBe(patched[0]);
  });
});
