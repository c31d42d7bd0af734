import { Problems, checkString, type StringRule } from '../validation/problems';
import type { PortInfo } from './commands';

/**
 * Port information (service-spec 2.5) as data: every member with its rule and the operations that accept
 * it. The spec leaves lengths open; the bounds here are generous for real names and addresses and small
 * enough that a hostile message costs little. Every member is optional: a missing detail is the old
 * provider's to reject (Resolution Required), not ours to guess.
 */
export type PortInfoUse = 'create' | 'update';
/** Where a portInfo is written out: the NP side gets every member a partner may give, query adds activationAddress. */
export type PortInfoShape = 'np' | 'query';

type Member =
  | { kind: 'string'; rule: StringRule; only?: PortInfoUse | 'query' }
  | { kind: 'boolean'; only?: PortInfoUse | 'query' }
  | { kind: 'object'; members: Readonly<Record<string, Member>>; only?: PortInfoUse | 'query' };

const text = (max: number, only?: PortInfoUse): Member => ({ kind: 'string', rule: { min: 1, max }, only });

const ADDRESS: Record<string, Member> = {
  addressLine1: text(100),
  addressLine2: text(100),
  city: text(50),
  state: text(50),
  zip: text(16),
};

export const PORT_INFO_MEMBERS: Readonly<Record<string, Member>> = {
  authorizationName: text(100),
  accountNo: text(32),
  newNumLocalSP: text(36, 'create'),
  pwdPin: text(16),
  termsCondition: text(64),
  contact: {
    kind: 'object',
    members: {
      isBusinessType: { kind: 'boolean' },
      businessName: text(100, 'update'),
      namePrefix: text(10),
      firstName: text(50),
      middleName: text(50),
      lastName: text(50),
      nameSuffix: text(10),
      additionalTitle: text(50),
    },
  },
  location: {
    kind: 'object',
    members: {
      portAddress: { kind: 'object', members: ADDRESS },
      activationAddress: { kind: 'object', members: ADDRESS, only: 'query' },
    },
  },
};

const ONLY_TEXT: Record<PortInfoUse | 'query', string> = {
  create: 'is accepted by CreatePortIn only',
  update: 'is accepted by UpdatePortIn only',
  query: 'is returned by QueryPortIn only',
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Validates one object against its members and returns a copy holding only the members given (nulls dropped). */
function checkMembers(problems: Problems, path: string, value: Record<string, unknown>, members: Readonly<Record<string, Member>>, use: PortInfoUse) {
  const clean: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(members)) {
    const raw = value[name];
    if (raw === null || raw === undefined) continue;
    const memberPath = `${path}.${name}`;
    if (member.only && member.only !== use) {
      problems.add(memberPath, ONLY_TEXT[member.only]);
      continue;
    }
    if (member.kind === 'string') {
      if (checkString(problems, memberPath, raw, member.rule)) clean[name] = raw;
    } else if (member.kind === 'boolean') {
      if (typeof raw === 'boolean') clean[name] = raw;
      else problems.add(memberPath, 'must be true or false');
    } else if (!isObject(raw)) {
      problems.add(memberPath, 'must be an object');
    } else {
      const nested = checkMembers(problems, memberPath, raw, member.members, use);
      if (Object.keys(nested).length > 0) clean[name] = nested;
    }
  }
  return clean;
}

/** Checks portInfo (create) or updatePortInfo (update); returns the normalised copy, or undefined when absent or not an object. */
export function checkPortInfo(problems: Problems, path: string, value: unknown, use: PortInfoUse): PortInfo | undefined {
  if (value === null || value === undefined) {
    problems.add(path, 'is required');
    return undefined;
  }
  if (!isObject(value)) {
    problems.add(path, 'must be an object');
    return undefined;
  }
  return checkMembers(problems, path, value, PORT_INFO_MEMBERS, use);
}

/**
 * The Avro value of a portInfo for the given record: every member of that record present, null when not
 * held (nested records only when they hold something).
 */
export function toAvroPortInfo(info: PortInfo, shape: PortInfoShape): Record<string, unknown> {
  const keeps = (member: Member): boolean => (shape === 'query' ? member.only !== 'create' : member.only !== 'query');
  const write = (value: Record<string, unknown> | undefined, members: Readonly<Record<string, Member>>): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries(members)
        .filter(([, member]) => keeps(member))
        .map(([name, member]) => {
          const raw = value?.[name];
          if (raw === undefined || raw === null) return [name, null];
          return [name, member.kind === 'object' ? write(raw as Record<string, unknown>, member.members) : raw];
        }),
    );
  return write(info as Record<string, unknown>, PORT_INFO_MEMBERS);
}
