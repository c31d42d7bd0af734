import { appendFileSync } from 'node:fs';

/**
 * The figures of one fault test, each counted from what happened (records on the topics, entries in
 * Redis, lines of the worker's log) or left out: a figure a test cannot measure is absent, never a constant.
 * `applied` counts effects found in the state (ledger entries, port changes), `duplicates` effects applied
 * more than once, `lost` commands sent whose effect is missing.
 */
export interface Counts {
  sent?: number;
  replied?: number;
  applied?: number;
  duplicates?: number;
  lost?: number;
  /**
   * Extra records under an id already seen: reply records beyond one per correlation id, event records beyond
   * one per `ce_id`, NP request records beyond one per request. The suite's workers write exactly once
   * (FAULT_DELIVERY, as KAFKA_DELIVERY's default), so read read_committed these are 0; at least once they
   * are the copies a redelivery sends again. A figure the test does not read is absent.
   */
  copies: { replies?: number; events?: number; npRequests?: number };
}

export const seconds = (since: number): string => `${((Date.now() - since) / 1000).toFixed(1)} s`;

const FIGURES = ['sent', 'replied', 'applied', 'duplicates', 'lost'] as const;
const COPIES = [
  ['replies', 'replies'],
  ['events', 'events'],
  ['npRequests', 'NP requests'],
] as const;

/** The count part of a line: the figures measured, in their fixed order, then the copies. */
export function formatCounts(counts: Counts): string {
  const figures = FIGURES.filter((name) => counts[name] !== undefined).map((name) => `${name} ${counts[name]}`);
  const copies = COPIES.filter(([name]) => counts.copies[name] !== undefined).map(([name, label]) => `${label} ${counts.copies[name]}`);
  if (copies.length === 0) throw new Error('a report needs at least one measured copies figure');
  return [...figures, `copies: ${copies.join(', ')}`].join(', ');
}

/** Prints `faults: <name> — sent …, replied …, applied …, duplicates …, lost …, copies: … (<extra>)` and keeps it for the summary. */
export function report(name: string, counts: Counts, extra: string[] = []): string {
  const line = `faults: ${name} — ${formatCounts(counts)}${extra.length > 0 ? ` (${extra.join('; ')})` : ''}`;
  console.log(line);
  if (process.env.FAULTS_REPORT_FILE) appendFileSync(process.env.FAULTS_REPORT_FILE, `${line}\n`);
  return line;
}
