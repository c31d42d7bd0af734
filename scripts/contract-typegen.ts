import type { AvroRecordSchema } from '../src/adapters/registry/schemas';

// Turns the Avro schemas of schemas/ into TypeScript declarations, purely (no I/O), so the client's
// signatures follow the contract: a renamed or retyped field breaks the build, not production.
//
// Per named record it emits `interface X` (the record as decoded: every field present) and, when a field
// anywhere below it has a default, `interface XInput` (defaulted fields optional, as avsc fills them when
// encoding). `ContractRecords` / `ContractInputs` map each record's full name to those types.
// A record defined in several files (each .avsc is self-contained) must be defined identically.

type AvroType = string | AvroType[] | AvroObjectType;

interface AvroField {
  name: string;
  type: AvroType;
  doc?: string;
  default?: unknown;
}

/**
 * A type written as an object. Which attributes it has follows from `type` (items for an array, fields for
 * a record…); the generator reads each only under its `type`, and the registry has checked the schemas.
 */
interface AvroObjectType {
  type: AvroType;
  name: string;
  namespace?: string;
  doc?: string;
  items: AvroType;
  values: AvroType;
  fields: AvroField[];
  symbols: string[];
  size: number;
}

interface NamedDef {
  fullName: string;
  kind: 'record' | 'enum' | 'fixed';
  schema: AvroObjectType;
  /** Namespace its field types resolve relative names in. */
  namespace: string;
}

const PRIMITIVES: Record<string, string> = {
  null: 'null',
  boolean: 'boolean',
  int: 'number',
  long: 'number',
  float: 'number',
  double: 'number',
  bytes: 'Buffer',
  string: 'string',
};

const qualify = (name: string, namespace: string): string => (name.includes('.') || namespace === '' ? name : `${namespace}.${name}`);

const namespaceOf = (fullName: string): string => fullName.split('.').slice(0, -1).join('.');
const pascal = (segment: string): string => segment.charAt(0).toUpperCase() + segment.slice(1);

/** Collects every named type, checking that repeated definitions agree. */
function collectNamed(schemas: Iterable<AvroRecordSchema>): Map<string, NamedDef> {
  const named = new Map<string, NamedDef>();
  const visit = (type: AvroType, namespace: string): void => {
    if (Array.isArray(type)) return type.forEach((branch) => visit(branch, namespace));
    if (typeof type !== 'object' || type === null) return;
    if (type.type === 'array') return visit(type.items, namespace);
    if (type.type === 'map') return visit(type.values, namespace);
    if (type.type === 'record' || type.type === 'error' || type.type === 'enum' || type.type === 'fixed') {
      const fullName = qualify(type.name, type.namespace ?? namespace);
      const known = named.get(fullName);
      if (known && JSON.stringify(known.schema) !== JSON.stringify(type)) {
        throw new Error(`record ${fullName} is defined twice with different content`);
      }
      if (known) return;
      const kind = type.type === 'enum' ? 'enum' : type.type === 'fixed' ? 'fixed' : 'record';
      named.set(fullName, { fullName, kind, schema: type, namespace: namespaceOf(fullName) });
      if (kind === 'record') for (const field of type.fields) visit(field.type, namespaceOf(fullName));
      return;
    }
    if (typeof type.type === 'object' || Array.isArray(type.type)) visit(type.type, namespace);
  };
  for (const schema of schemas) visit(schema as unknown as AvroObjectType, schema.namespace ?? '');
  return named;
}

/** TypeScript names: the simple name when unique, else prefixed by as many namespace segments as it takes. */
function assignTsNames(fullNames: string[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const fullName of fullNames) {
    const segments = fullName.split('.');
    for (let take = 1; take <= segments.length; take++) {
      const candidate = segments.slice(-take).map(pascal).join('');
      const rivals = fullNames.filter((other) => other !== fullName && other.split('.').slice(-take).map(pascal).join('') === candidate);
      if (rivals.length === 0) {
        names.set(fullName, candidate);
        break;
      }
    }
    if (!names.has(fullName)) throw new Error(`no unique TypeScript name for ${fullName}`);
  }
  return names;
}

const docComment = (doc: unknown, indent: string): string[] =>
  typeof doc === 'string' && doc.trim() !== ''
    ? [
        `${indent}/** ${doc
          .trim()
          .replace(/\*\//g, '*\\/')
          .replace(/\s*\n\s*/g, ' ')} */`,
      ]
    : [];

const propertyName = (name: string): string => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : `'${name}'`);

export function generateContractTypes(schemas: Iterable<AvroRecordSchema>, header = 'schemas/'): string {
  const named = collectNamed(schemas);
  const fullNames = [...named.keys()].sort();
  const tsNames = assignTsNames(fullNames);

  const resolve = (name: string, namespace: string): NamedDef => {
    const def = named.get(qualify(name, namespace)) ?? named.get(name);
    if (!def) throw new Error(`unknown Avro type ${name} (in namespace ${namespace || '<none>'})`);
    return def;
  };

  // Whether a record (or anything below it) has a defaulted field, so its Input variant differs.
  const inputMemo = new Map<string, boolean>();
  const needsInput = (def: NamedDef): boolean => {
    if (def.kind !== 'record') return false;
    const memo = inputMemo.get(def.fullName);
    if (memo !== undefined) return memo;
    inputMemo.set(def.fullName, false); // a recursive reference contributes nothing new
    const result = def.schema.fields.some((field) => 'default' in field || typeMentionsInput(field.type, def.namespace));
    inputMemo.set(def.fullName, result);
    return result;
  };
  const typeMentionsInput = (type: AvroType, namespace: string): boolean => {
    if (Array.isArray(type)) return type.some((branch) => typeMentionsInput(branch, namespace));
    if (typeof type === 'string') return PRIMITIVES[type] === undefined && needsInput(resolve(type, namespace));
    if (type.type === 'array') return typeMentionsInput(type.items, namespace);
    if (type.type === 'map') return typeMentionsInput(type.values, namespace);
    if (type.type === 'record' || type.type === 'error') return needsInput(resolve(qualify(type.name, type.namespace ?? namespace), ''));
    if (typeof type.type === 'object' || Array.isArray(type.type)) return typeMentionsInput(type.type, namespace);
    return false;
  };

  const refName = (def: NamedDef, input: boolean): string => {
    const base = tsNames.get(def.fullName) as string;
    return input && needsInput(def) ? `${base}Input` : base;
  };

  const tsType = (type: AvroType, namespace: string, input: boolean): string => {
    if (Array.isArray(type)) {
      // ["null", X] reads as `X | null`: null goes last.
      const branches = [...new Set(type.map((branch) => tsType(branch, namespace, input)))];
      return [...branches.filter((b) => b !== 'null'), ...branches.filter((b) => b === 'null')].join(' | ');
    }
    if (typeof type === 'string') return PRIMITIVES[type] ?? refName(resolve(type, namespace), input);
    switch (type.type) {
      case 'array': {
        const items = tsType(type.items, namespace, input);
        return items.includes(' | ') ? `Array<${items}>` : `${items}[]`;
      }
      case 'map':
        return `Record<string, ${tsType(type.values, namespace, input)}>`;
      case 'record':
      case 'error':
      case 'enum':
      case 'fixed':
        return refName(resolve(qualify(type.name, type.namespace ?? namespace), ''), input);
      default:
        // A primitive with attributes (e.g. a logical type): avsc without logical types yields the underlying type.
        return typeof type.type === 'string' ? tsType(type.type, namespace, input) : tsType(type.type, namespace, input);
    }
  };

  const lines: string[] = [`// Generated by scripts/generate-contract-types.ts from ${header} — do not edit; run \`npm run generate\`.`, ''];
  const emitRecord = (def: NamedDef, input: boolean): void => {
    lines.push(...docComment(def.schema.doc, ''));
    lines.push(`export interface ${refName(def, input)} {`);
    for (const field of def.schema.fields) {
      lines.push(...docComment(field.doc, '  '));
      const optional = input && 'default' in field ? '?' : '';
      lines.push(`  ${propertyName(field.name)}${optional}: ${tsType(field.type, def.namespace, input)};`);
    }
    lines.push('}', '');
  };
  for (const fullName of fullNames) {
    const def = named.get(fullName) as NamedDef;
    if (def.kind === 'enum') {
      lines.push(...docComment(def.schema.doc, ''));
      lines.push(`export type ${refName(def, false)} = ${def.schema.symbols.map((s) => JSON.stringify(s)).join(' | ')};`, '');
    } else if (def.kind === 'fixed') {
      lines.push(`/** Avro fixed of ${def.schema.size} bytes. */`, `export type ${refName(def, false)} = Buffer;`, '');
    } else {
      emitRecord(def, false);
      if (needsInput(def)) emitRecord(def, true);
    }
  }
  const records = fullNames.filter((name) => named.get(name)?.kind === 'record');
  lines.push('/** Every record of the contract by Avro full name, as decoded. */', 'export interface ContractRecords {');
  for (const name of records) lines.push(`  '${name}': ${refName(named.get(name) as NamedDef, false)};`);
  lines.push('}', '');
  lines.push('/** Every record by Avro full name, as a producer may give it (fields with a default are optional). */', 'export interface ContractInputs {');
  for (const name of records) lines.push(`  '${name}': ${refName(named.get(name) as NamedDef, true)};`);
  lines.push('}', '');
  lines.push('export type RecordName = keyof ContractRecords;', '');

  const declared = new Set<string>();
  for (const name of fullNames) {
    for (const ts of [refName(named.get(name) as NamedDef, false), refName(named.get(name) as NamedDef, true)]) declared.add(ts);
  }
  const clash = [...declared].filter((ts) => ts === 'ContractRecords' || ts === 'ContractInputs' || ts === 'RecordName');
  if (clash.length > 0) throw new Error(`record names clash with the generated maps: ${clash.join(', ')}`);
  const inputsOnly = fullNames.filter((n) => needsInput(named.get(n) as NamedDef)).map((n) => `${tsNames.get(n)}Input`);
  const collision = inputsOnly.find((ts) => [...tsNames.values()].includes(ts));
  if (collision) throw new Error(`generated name ${collision} collides with a record of the same name`);
  return lines.join('\n');
}
