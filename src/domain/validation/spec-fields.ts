import type { StringRule } from './problems';

/** Field rules exactly as service-spec.md section 2 gives them; shared by every command that has the field. */
export const GPSI: StringRule = { min: 11, max: 15, pattern: /^[0-9]{11,15}$/, patternText: '11 to 15 digits' };
export const PARTNER_TRANSACTION_ID: StringRule = { min: 1, max: 36 };
export const PORT_ORDER_ID: StringRule = { min: 1, max: 36 };
export const SUBSCRIBER_ID: StringRule = {
  min: 1,
  max: 36,
  pattern: /^[-a-zA-Z0-9\s].*$/,
  patternText: 'a letter, digit, hyphen or space first',
};
export const WHOLESALE_PLAN_ID: StringRule = SUBSCRIBER_ID;
export const ICCID: StringRule = { min: 19, max: 20, pattern: /^[0-9]{19,20}$/, patternText: '19 to 20 digits' };
export const PEI: StringRule = { min: 15, max: 17, pattern: /^[0-9]{15,17}$/, patternText: '15 to 17 digits' };
export const EID: StringRule = { min: 19, max: 32, pattern: /^[0-9]{19,32}$/, patternText: '19 to 32 digits' };
/** Port-in operations: no length bound in the spec; we still cap it so a hostile header costs little. */
export const WHOLESALE_CUSTOMER_ID_PORTIN: StringRule = { min: 1, max: 64 };
/** Balance operations: 1 to 12 characters per the spec. */
export const WHOLESALE_CUSTOMER_ID_BALANCE: StringRule = { min: 1, max: 12 };
/** X-Correlation-Id: declared a UUID, but the spec's own example is not one; any non-empty string up to 128. */
export const CORRELATION_ID: StringRule = { min: 1, max: 128 };
