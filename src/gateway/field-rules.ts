import { BALANCE_ACTIONS, BALANCE_TYPE_MAIN } from '../domain/balance/validation';
import { ELIGIBILITY_STATUSES } from '../domain/portin/eligibility';
import { PORT_STATUSES } from '../domain/portin/lifecycle';
import { PORT_INFO_MEMBERS } from '../domain/portin/port-info';
import { ORDER_STATUSES } from '../domain/port-orders/status';
import { ORDER_ID } from '../domain/port-orders/validate';
import { BILL_CYCLE_FREQUENCIES, E_SIM_DELIVERY_METHODS } from '../domain/portin/validate-commands';
import type { StringRule } from '../domain/validation/problems';
import { EID, GPSI, ICCID, PARTNER_TRANSACTION_ID, PEI, PORT_ORDER_ID, SUBSCRIBER_ID, WHOLESALE_PLAN_ID } from '../domain/validation/spec-fields';
import type { JsonSchema } from './contract-schemas';

/**
 * What the service's validators accept of a text field, written into the OpenAPI document: the Avro records
 * say only "string", the rules live in the domain. Paths are the service's own (`balances[].action`, `[]`
 * for any item). The rules are the domain's constants themselves, so the document cannot drift from them.
 */
export type FieldRules = Readonly<Record<string, StringRule>>;

/** portInfo's members (create) and updatePortInfo's (update), from the one table the validator walks. */
function portInfoRules(prefix: string, members: typeof PORT_INFO_MEMBERS, into: Record<string, StringRule>): Record<string, StringRule> {
  for (const [name, member] of Object.entries(members)) {
    if (member.kind === 'string') into[`${prefix}.${name}`] = member.rule;
    if (member.kind === 'object') portInfoRules(`${prefix}.${name}`, member.members, into);
  }
  return into;
}

export const COMMAND_FIELD_RULES: FieldRules = {
  gpsi: GPSI,
  partnerTransactionId: PARTNER_TRANSACTION_ID,
  portOrderId: PORT_ORDER_ID,
  subscriberId: SUBSCRIBER_ID,
  wholesalePlanId: WHOLESALE_PLAN_ID,
  iccid: ICCID,
  pei: PEI,
  eid: EID,
  eSIMDeliveryMethod: { oneOf: E_SIM_DELIVERY_METHODS },
  billCycleFrequency: { oneOf: BILL_CYCLE_FREQUENCIES },
  orderId: ORDER_ID,
  'numbers[]': GPSI,
  'numbers[].gpsi': GPSI,
  'numbers[].partnerTransactionId': PARTNER_TRANSACTION_ID,
  'numbers[].subscriberId': SUBSCRIBER_ID,
  'numbers[].iccid': ICCID,
  'balances[].action': { oneOf: BALANCE_ACTIONS },
  'balances[].balanceType': { oneOf: [BALANCE_TYPE_MAIN] },
  ...portInfoRules('portInfo', PORT_INFO_MEMBERS, {}),
  ...portInfoRules('updatePortInfo', PORT_INFO_MEMBERS, {}),
};

/** The closed sets a successful reply's fields are drawn from. */
export const REPLY_FIELD_RULES: FieldRules = {
  status: { oneOf: ['Success'] },
  portStatus: { oneOf: PORT_STATUSES },
  eligibilityStatus: { oneOf: ELIGIBILITY_STATUSES },
  orderStatus: { oneOf: ORDER_STATUSES },
  'numbers[].portStatus': { oneOf: [...PORT_STATUSES, 'CREATING'] },
  'numbers[].eligibilityStatus': { oneOf: ELIGIBILITY_STATUSES },
};

/** A StringRule as JSON Schema keywords; a nullable field's enum admits null, as its type does. */
export function keywordsOf(rule: StringRule, nullable: boolean): JsonSchema {
  return {
    ...(rule.min !== undefined ? { minLength: rule.min } : {}),
    ...(rule.max !== undefined ? { maxLength: rule.max } : {}),
    ...(rule.pattern ? { pattern: rule.pattern.source } : {}),
    ...(rule.oneOf ? { enum: nullable ? [...rule.oneOf, null] : [...rule.oneOf] } : {}),
  };
}

const typesOf = (schema: JsonSchema): unknown[] => (Array.isArray(schema.type) ? schema.type : [schema.type]);

/** `schema` (a command's or reply's JSON Schema) with the rule of each of its text fields written in; a copy. */
export function withFieldRules(schema: JsonSchema, rules: FieldRules, path = ''): JsonSchema {
  const out: JsonSchema = { ...schema };
  const rule = rules[path];
  if (rule && typesOf(schema).includes('string')) Object.assign(out, keywordsOf(rule, typesOf(schema).includes('null')));
  if (typeof schema.properties === 'object' && schema.properties !== null) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties as Record<string, JsonSchema>).map(([name, child]) => [name, withFieldRules(child, rules, path ? `${path}.${name}` : name)]),
    );
  }
  if (typeof schema.items === 'object' && schema.items !== null) out.items = withFieldRules(schema.items as JsonSchema, rules, `${path}[]`);
  return out;
}
