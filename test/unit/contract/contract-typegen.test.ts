import { readFileSync } from 'node:fs';
import type { AvroRecordSchema } from '../../../src/adapters/registry/schemas';
import { generateContractTypes } from '../../../scripts/contract-typegen';
import { GENERATED_TYPES_FILE, renderContractTypes } from '../../../scripts/generate-contract-types';

const record = (name: string, namespace: string, fields: unknown[], doc?: string): AvroRecordSchema => ({ type: 'record', name, namespace, fields, ...(doc ? { doc } : {}) });

describe('contract types generated from schemas/', () => {
  it('the committed src/contract/types.generated.ts is what the schemas generate (run `npm run generate` after a schema change)', () => {
    expect(readFileSync(GENERATED_TYPES_FILE, 'utf8')).toBe(renderContractTypes());
  });

  it('renders ["null", X] as `X | null`, arrays, maps, enums and nested records; defaulted fields are optional only in the Input variant', () => {
    const out = generateContractTypes([
      record('Order', 'shop.v1', [
        { name: 'id', type: 'string', doc: 'The order id.' },
        { name: 'note', type: ['null', 'string'], default: null },
        { name: 'tags', type: { type: 'array', items: 'string' } },
        { name: 'counts', type: { type: 'map', values: 'long' } },
        { name: 'kind', type: { type: 'enum', name: 'Kind', symbols: ['A', 'B'] } },
        { name: 'lines', type: { type: 'array', items: { type: 'record', name: 'Line', fields: [{ name: 'qty', type: 'int', default: 1 }] } } },
        { name: 'mixed', type: { type: 'array', items: ['null', 'double'] } },
      ]),
    ]);
    expect(out).toContain(
      'export interface Order {\n  /** The order id. */\n  id: string;\n  note: string | null;\n  tags: string[];\n  counts: Record<string, number>;\n  kind: Kind;\n  lines: Line[];\n  mixed: Array<number | null>;\n}',
    );
    expect(out).toContain('export interface OrderInput {');
    expect(out).toContain('  note?: string | null;');
    expect(out).toContain('  lines: LineInput[];');
    expect(out).toContain('export type Kind = "A" | "B";');
    expect(out).toContain("  'shop.v1.Line': Line;");
    expect(out).toContain("  'shop.v1.Order': OrderInput;");
  });

  it('emits no Input variant for a record without defaults anywhere below it', () => {
    const out = generateContractTypes([record('Plain', 'x', [{ name: 'a', type: 'string' }])]);
    expect(out).not.toContain('PlainInput');
    expect(out).toContain("  'x.Plain': Plain;");
  });

  it('resolves named references relative to the enclosing namespace and qualifies clashing simple names', () => {
    const address = { type: 'record', name: 'Address', fields: [{ name: 'city', type: 'string' }] };
    const out = generateContractTypes([
      record('A', 'p.create', [
        { name: 'home', type: address },
        { name: 'work', type: 'Address' },
      ]),
      record('B', 'p.query', [{ name: 'home', type: address }]),
    ]);
    expect(out).toContain('export interface CreateAddress {');
    expect(out).toContain('export interface QueryAddress {');
    expect(out).toContain('  work: CreateAddress;');
  });

  it('accepts a record repeated identically in several files and refuses two different definitions', () => {
    const amounts = { type: 'record', name: 'Amounts', fields: [{ name: 'n', type: 'double' }] };
    const same = generateContractTypes([record('A', 'b', [{ name: 'x', type: amounts }]), record('B', 'b', [{ name: 'y', type: amounts }])]);
    expect(same.match(/export interface Amounts /g)).toHaveLength(1);
    const other = { ...amounts, fields: [{ name: 'm', type: 'double' }] };
    expect(() => generateContractTypes([record('A', 'b', [{ name: 'x', type: amounts }]), record('B', 'b', [{ name: 'y', type: other }])])).toThrow(
      'record b.Amounts is defined twice with different content',
    );
  });

  it('fails on a reference to a type no schema defines', () => {
    expect(() => generateContractTypes([record('A', 'b', [{ name: 'x', type: 'Missing' }])])).toThrow('unknown Avro type Missing');
  });
});
