import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import globalTeardown from '../../support/global-teardown';

/** Prints every test's count line together, then stops the suite's servers. */
export default async function faultsTeardown(): Promise<void> {
  const file = process.env.FAULTS_REPORT_FILE;
  if (file && existsSync(file)) {
    const total = ((Date.now() - Number(process.env.FAULTS_STARTED_AT)) / 1000).toFixed(0);
    console.log(`\n[faults] summary (suite ${total} s)\n${readFileSync(file, 'utf8')}`);
    rmSync(dirname(file), { recursive: true, force: true });
  }
  await globalTeardown();
}
