import Ajv from 'ajv';
import fc from 'fast-check';
import { openApiDocument } from '../../../src/gateway/openapi-document';
import { checkUpdateActions } from '../../../src/domain/balance/validation';
import { checkString, Problems } from '../../../src/domain/validation/problems';
import { GPSI } from '../../../src/domain/validation/spec-fields';

// The OpenAPI document accepts what the service's validators accept, field by field: a partner validating
// with it is refused exactly what the service would refuse.

describe('the HTTP contract', () => {
  describe('the OpenAPI document accepts a field exactly when the service does', () => {
    let document: any;
    beforeAll(async () => {
      document = await openApiDocument();
    });
    const ajv = new Ajv({ strict: false });
    const bodyOf = (path: string, method: string) => document.paths[path][method].requestBody.content['application/json'].schema;
    // lengths in UTF-16 units (the service's String.length) and in code points (JSON Schema's) agree on these
    const text = fc.oneof(fc.stringMatching(/^[0-9]{0,17}$/), fc.string({ unit: 'binary-ascii', maxLength: 20 }));

    it('gpsi (a pattern and lengths)', () => {
      const documented = ajv.compile(bodyOf('/portins/eligibility', 'post').properties.gpsi);
      fc.assert(
        fc.property(text, (gpsi) => {
          expect([gpsi, documented(gpsi)]).toEqual([gpsi, checkString(new Problems(), 'gpsi', gpsi, GPSI)]);
        }),
      );
    });

    it("a balance update's action (an enum)", () => {
      const documented = ajv.compile(bodyOf('/balances', 'patch').properties.balances.items.properties.action);
      const action = fc.oneof(fc.constantFrom('Add', 'Subtract', 'add', 'SUBTRACT', 'Multiply', ''), text);
      fc.assert(
        fc.property(action, (value) => {
          const { problems } = checkUpdateActions([{ subBalanceInstId: 'sb', subBalanceType: 'Data', unitType: 'MB', action: value, quantity: 1 }]);
          expect([value, documented(value)]).toEqual([value, !problems.some((p) => p.path === 'balances[0].action')]);
        }),
      );
    });
  });
});
