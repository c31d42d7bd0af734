import { appendFileSync } from 'node:fs';

/**
 * The figures of one fault test. `applied` counts effects found in the state (ledger entries, port
 * changes), `duplicates` effects applied more than once, `lost` commands sent whose effect is missing.
 */
export interface Counts {
  sent: number;
  replied: number;
  applied: number;
  duplicates: number;
  lost: number;
}

export const seconds = (since: number): string => `${((Date.now() - since) / 1000).toFixed(1)} s`;

/** Prints `faults: <name> — sent …, replied …, applied …, duplicates …, lost … (<extra>)` and keeps it for the summary. */
export function report(name: string, counts: Counts, extra: string[] = []): string {
  const line =
    `faults: ${name} — sent ${counts.sent}, replied ${counts.replied}, applied ${counts.applied}, ` +
    `duplicates ${counts.duplicates}, lost ${counts.lost}${extra.length > 0 ? ` (${extra.join('; ')})` : ''}`;
  console.log(line);
  if (process.env.FAULTS_REPORT_FILE) appendFileSync(process.env.FAULTS_REPORT_FILE, `${line}\n`);
  return line;
}
