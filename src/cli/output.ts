import type { ContractEvent } from '../client/events';
import type { FieldProblem } from '../contract/errors';

/** How replies, errors and events are printed: indented `key: value` lines for people, one JSON line with --json. */
const isPlainValue = (value: unknown): boolean => value === null || typeof value !== 'object';
const scalar = (value: unknown): string => (value === null || value === undefined ? '-' : typeof value === 'string' ? value : JSON.stringify(value));

/** Avro records decode into class instances; JSON round-trip gives plain data (and drops their methods). */
export const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const isRecordOf = (value: unknown, field: (v: unknown) => boolean): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every(field);
const isFlat = (value: unknown): value is Record<string, unknown> => isRecordOf(value, isPlainValue);

/** Rows of flat records (sub-balances, ledger entries) read best as a table; a small record inside (validFor) gives dotted columns. */
const isFlatRecord = (value: unknown): value is Record<string, unknown> => isRecordOf(value, (v) => isPlainValue(v) || isFlat(v));

const flattened = (row: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(row).flatMap(([key, value]) => (isFlat(value) ? Object.entries(value).map(([inner, v]) => [`${key}.${inner}`, v]) : [[key, value]])));

function tableLines(records: Record<string, unknown>[], indent: string): string[] {
  const rows = records.map(flattened);
  const all = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  // A record some rows lack (null) shows in its dotted columns only, where it first comes.
  const groupOf = (column: string) => {
    const children = all.filter((other) => other.startsWith(`${column.split('.')[0]}.`));
    return children.length > 0 ? children : [column];
  };
  const columns = [...new Set(all.flatMap(groupOf))];
  const cells = [columns, ...rows.map((row) => columns.map((column) => scalar(row[column])))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i].length)));
  return cells.map(
    (line) =>
      `${indent}${line
        .map((cell, i) => cell.padEnd(widths[i]))
        .join('  ')
        .trimEnd()}`,
  );
}

export function prettyLines(value: unknown, indent = ''): string[] {
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${indent}[]`];
    if (value.length > 1 && value.every(isFlatRecord)) return tableLines(value, indent);
    return value.flatMap((item) => {
      if (isPlainValue(item)) return [`${indent}- ${scalar(item)}`];
      const [first = '', ...rest] = prettyLines(item, `${indent}  `);
      return [`${indent}- ${first.trimStart()}`, ...rest];
    });
  }
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => {
      if (isPlainValue(item)) return [`${indent}${key}: ${scalar(item)}`];
      if (Array.isArray(item) && item.every(isPlainValue)) return [`${indent}${key}: ${item.length === 0 ? '[]' : item.map(scalar).join(', ')}`];
      return [`${indent}${key}:`, ...prettyLines(item, `${indent}  `)];
    });
  }
  return [`${indent}${scalar(value)}`];
}

export function formatReply(reply: object, options: { json: boolean; operation: string; correlationId: string }): string {
  if (options.json) return JSON.stringify(plain(reply));
  return [`${options.operation}  (X-Correlation-Id ${options.correlationId})`, ...prettyLines(plain(reply), '  ')].join('\n');
}

export interface PrintableError {
  code: string;
  message: string;
  problems?: readonly FieldProblem[];
  correlationId?: string;
}

export function formatError(error: PrintableError, json: boolean): string {
  if (json) return JSON.stringify({ error: { code: error.code, message: error.message, problems: error.problems ?? [] }, correlationId: error.correlationId });
  const lines = [`error ${error.code}: ${error.message}`];
  for (const problem of error.problems ?? []) lines.push(`  ${problem.path}: ${problem.reason}`);
  if (error.correlationId) lines.push(`  (X-Correlation-Id ${error.correlationId})`);
  return lines.join('\n');
}

export function formatEvent(event: ContractEvent, json: boolean): string {
  if (json) return JSON.stringify(plain(event));
  const when = event.cloudEvent.time ?? new Date(Number(event.timestamp)).toISOString();
  const name = event.recordName.split('.').pop();
  const detail = event.known ? JSON.stringify(plain(event.value)) : (event.error ?? JSON.stringify(plain(event.value)));
  return `${when}  ${name}  ${event.key ?? '-'}  ${detail}`;
}
