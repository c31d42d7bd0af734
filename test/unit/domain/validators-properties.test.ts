import fc from 'fast-check';
import { Type } from 'avsc';
import { loadSchemas } from '../../../src/adapters/registry/schemas';
import { buildCatalog } from '../../../src/domain/catalog/catalog';
import { checkAddBuckets, checkCancelBuckets, checkHistory, checkQueryBalances, checkSwapPrimary, checkUpdateActions, checkUpdateEnvelope } from '../../../src/domain/balance/validation';
import { toMilli } from '../../../src/domain/balance/units';
import { parseNpResponse } from '../../../src/domain/portin/np-response';
import { checkCancelPortIn, checkCreatePortIn, checkQueryPortIn, checkUpdatePortIn } from '../../../src/domain/portin/validate-commands';
import { checkEligibility } from '../../../src/handlers/portin/check-eligibility';
import type { FieldProblem } from '../../../src/contract/errors';
import { readEnvelope } from '../../../src/pipeline/envelope';
import defaultCatalog from '../../../config/catalog.json';

/**
 * Every validator the worker runs on a decoded command, fed random input: any object (the decoder always
 * hands over a record, never null or a primitive), objects with the command's field names and values of any
 * type, and random values of the command's own Avro schema (what the decoder actually produces). Each must
 * answer with its field problems (the one convention: validation/problems.ts's Checked) and never throw
 * (an error would be answered INTERNAL).
 */
const catalog = buildCatalog(defaultCatalog);
const schemas = loadSchemas();

type Validator = (value: any) => FieldProblem[];

const VALIDATORS: Record<string, Validator> = {
  'wholesale.portin.v1.CreatePortIn': (value) => checkCreatePortIn(value).problems,
  'wholesale.portin.v1.UpdatePortIn': (value) => checkUpdatePortIn(value).problems,
  'wholesale.portin.v1.CancelPortIn': (value) => checkCancelPortIn(value).problems,
  'wholesale.portin.v1.QueryPortIn': (value) => checkQueryPortIn(value).problems,
  'wholesale.portin.v1.CheckPortInEligibility': (value) => checkEligibility(value).problems,
  'wholesale.balance.v1.AddBuckets': (value) => checkAddBuckets(value, catalog).problems,
  'wholesale.balance.v1.SwapPrimaryBucket': (value) => checkSwapPrimary(value, catalog).problems,
  'wholesale.balance.v1.CancelBuckets': (value) => checkCancelBuckets(value).problems,
  'wholesale.balance.v1.QueryBalances': (value) => checkQueryBalances(value).problems,
  'wholesale.balance.v1.UpdateBalances': (value) => {
    const envelope = checkUpdateEnvelope(value);
    return [...envelope.problems, ...checkUpdateActions(envelope.value ?? []).problems];
  },
  'wholesale.balance.v1.QueryBalanceHistory': (value) => checkHistory(value).problems,
};

const fieldNames = (recordName: string): string[] => (schemas.get(recordName)!.fields as { name: string }[]).map((f) => f.name);

/** An object with some of the record's field names (and a stranger), each with a value of any type. */
const shapedLike = (recordName: string) =>
  fc.dictionary(fc.constantFrom(...fieldNames(recordName), 'unexpected'), fc.anything({ maxDepth: 3, withNullPrototype: true, withBigInt: true }), { maxKeys: 8 });

const avroValue = (recordName: string) => {
  const type = Type.forSchema(schemas.get(recordName) as never);
  return fc.integer().map(() => type.random());
};

function expectFieldProblems(problems: unknown): void {
  expect(Array.isArray(problems)).toBe(true);
  for (const problem of problems as FieldProblem[]) {
    expect(typeof problem.path).toBe('string');
    expect(typeof problem.reason).toBe('string');
    expect(problem.reason.length).toBeGreaterThan(0);
  }
}

describe('validators on random input', () => {
  it.each(Object.keys(VALIDATORS))('%s answers field problems, never an untyped error', (recordName) => {
    const validate = VALIDATORS[recordName];
    const input = fc.oneof(fc.object({ maxDepth: 3, withBigInt: true }), shapedLike(recordName), avroValue(recordName));
    fc.assert(
      fc.property(input, (value) => expectFieldProblems(validate(value))),
      { numRuns: 300 },
    );
  });

  it('NP responses: any record name and value parse or give problems, never throw', () => {
    const names = [...schemas.keys()].filter((n) => n.startsWith('np.portin.v1.'));
    const input = fc.oneof(
      fc.tuple(fc.constantFrom(...names, 'x.Unknown'), fc.anything({ maxDepth: 3 })),
      fc.constantFrom(...names).chain((n) => fc.tuple(fc.constant(n), fc.oneof(shapedLike(n), avroValue(n)))),
    );
    fc.assert(
      fc.property(input, ([name, value]) => {
        const parsed = parseNpResponse(name, value);
        if (!parsed.ok) expectFieldProblems(parsed.problems);
      }),
      { numRuns: 500 },
    );
  });

  it('headers: any header values give an envelope with problems, never an error', () => {
    const headerValue = fc.oneof(
      fc.string({ maxLength: 1100 }),
      fc.uint8Array({ maxLength: 1100 }).map((b) => Buffer.from(b)),
      fc.array(fc.string(), { maxLength: 3 }),
    );
    const headers = fc.dictionary(
      fc.constantFrom('X-Correlation-Id', 'x-correlation-id', 'X-Reply-Topic', 'wholesaleCustomerId', 'kafka_correlationId', 'kafka_replyTopic', 'kafka_replyPartition', 'Authorization', 'other'),
      headerValue,
    );
    const rules = {
      defaultReplyTopic: 'replies',
      partnerReplyRole: 'balanceReplies' as const,
      partnerTopicPrefix: 'p.',
      forbiddenReplyTopics: new Set(['commands']),
      wholesaleCustomerId: { min: 1, max: 12 },
    };
    fc.assert(
      fc.property(headers, fc.nat(), (h, offset) => {
        const envelope = readEnvelope(h, { topic: 't', partition: 0, offset: String(offset) }, rules);
        expectFieldProblems(envelope.problems);
        expect(envelope.correlationId.length).toBeGreaterThan(0);
        expect(Buffer.byteLength(envelope.correlationId)).toBeLessThanOrEqual(1024);
      }),
      { numRuns: 1000 },
    );
  });

  it('quantities: any value converts to exact milli-units or a reason, never a fraction or NaN', () => {
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.integer(), fc.anything()), (value) => {
        const result = toMilli(value);
        if ('milli' in result) {
          expect(Number.isSafeInteger(result.milli)).toBe(true);
          expect(result.milli).toBeGreaterThan(0);
        } else expect(result.reason.length).toBeGreaterThan(0);
      }),
      { numRuns: 2000 },
    );
  });
});
