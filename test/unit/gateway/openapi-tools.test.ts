import { createConfig, lintFromString } from '@redocly/openapi-core';
import { openApiDocument } from '../../../src/gateway/openapi-document';
import { typeErrors } from '../../support/type-check';

// The served OpenAPI document as partners' tools take it: Redocly's linter (its recommended rules) finds
// nothing, and openapi-typescript makes a typed client whose types accept a real call and refuse a wrong one.

// openapi-typescript's dependencies are ES modules: loaded with Node's own require, which Jest's loader cannot do
const { createRequire } = process.getBuiltinModule('node:module');
const { default: openapiTS, astToString } = createRequire(__filename)('openapi-typescript') as typeof import('openapi-typescript');

const CALLS = `
import type { paths } from './wholesale-api';
type UpdateBalances = paths['/balances']['patch']['requestBody']['content']['application/json'];
type PortIn = paths['/portins']['get']['responses'][200]['content']['application/json'];
type Eligibility = paths['/portins/eligibility']['post']['responses'][200]['content']['application/json'];
export const subtract: UpdateBalances = {
  gpsi: '19459986891',
  balances: [{ subBalanceInstId: 'sb-1', subBalanceType: 'On-Net Data', unitType: 'MB', action: 'Subtract', quantity: 100 }],
};
export const isOpen = (reply: PortIn): boolean => reply.portStatus === 'OPEN';
// @ts-expect-error an action the service refuses
export const multiply: UpdateBalances['balances'][number]['action'] = 'Multiply';
// @ts-expect-error a status no port-in has
export const pending: PortIn['portStatus'] = 'PENDING';
// @ts-expect-error an answer eligibility never gives
export const maybe: Eligibility['eligibilityStatus'] = 'Maybe';
`;

describe("the OpenAPI document in partners' tools", () => {
  it("passes Redocly's recommended rules without an error or a warning", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(await openApiDocument()), absoluteRef: 'openapi.json', config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it('makes a typed client (openapi-typescript) that type-checks a call, and refuses actions and statuses the service never takes or gives', async () => {
    const client = astToString(await openapiTS(JSON.stringify(await openApiDocument())));
    expect(typeErrors({ '/virtual/wholesale-api.ts': client, '/virtual/calls.ts': CALLS })).toEqual([]);
  });
});
