import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { CustomerHierarchy, HierarchyError, MAX_DEPTH } from '../../../src/security/hierarchy';
import { createHierarchyAuthorizer, createOpenAuthorizer } from '../../../src/security/access';
import { ServiceError } from '../../../src/contract/errors';

// Two partners: P1 with brands B1 (with sub-brand B1a) and B2; P2 with brand C1.
const tree = {
  partners: [
    { id: 'P1', name: 'Partner one', nodes: [{ id: 'B1', nodes: [{ id: 'B1a' }] }, { id: 'B2' }] },
    { id: 'P2', nodes: [{ id: 'C1' }] },
  ],
};
const hierarchy = CustomerHierarchy.parse(tree);

function problemsOf(raw: unknown): string[] {
  try {
    CustomerHierarchy.parse(raw);
  } catch (error) {
    if (error instanceof HierarchyError) return error.problems.map((p) => `${p.path} ${p.reason}`);
    throw error;
  }
  return [];
}

describe('CustomerHierarchy', () => {
  it('knows each node, its partner and its subtree', () => {
    expect(hierarchy.size).toBe(6);
    expect(hierarchy.node('B1a')).toMatchObject({ id: 'B1a', parentId: 'B1', partnerId: 'P1', name: 'B1a' });
    expect(hierarchy.node('P1')).toMatchObject({ name: 'Partner one', partnerId: 'P1', subtree: ['P1', 'B1', 'B1a', 'B2'] });
    expect(hierarchy.partners().map((p) => p.id)).toEqual(['P1', 'P2']);
    expect(hierarchy.isWithin('B1a', 'P1')).toBe(true);
    expect(hierarchy.isWithin('B1a', 'B1')).toBe(true);
    expect(hierarchy.isWithin('B1', 'B1a')).toBe(false);
    expect(hierarchy.isWithin('B2', 'B1')).toBe(false);
    expect(hierarchy.isWithin('C1', 'P1')).toBe(false);
    expect(hierarchy.isWithin('nobody', 'P1')).toBe(false);
    expect(hierarchy.isWithin(undefined, 'P1')).toBe(false);
  });

  it('lists every problem of a bad file at once', () => {
    const problems = problemsOf({
      partners: [
        { id: 'P1', nodes: [{ id: 'B1' }, { id: 'B1' }, { name: 'no id' }, 'text'] },
        { id: 'bad id!', nodes: 'x' },
        { id: 'P3', name: '' },
      ],
    });
    expect(problems).toEqual([
      'partners[0].nodes[1].id duplicates B1: every node id must be unique across all partners',
      'partners[0].nodes[2].id is required',
      'partners[0].nodes[3] must be an object with an "id"',
      'partners[1].id must match letters, digits, . _ -',
      'partners[2].name must be at least 1 characters',
    ]);
    expect(problemsOf([])).toEqual(['(file) must be a JSON object with a "partners" array']);
    expect(problemsOf({ partners: [] })).toEqual(['partners must have at least 1 item(s)']);
  });

  it(`refuses nesting deeper than ${MAX_DEPTH} levels`, () => {
    let node: Record<string, unknown> = { id: 'leaf' };
    for (let i = MAX_DEPTH; i >= 1; i--) node = { id: `n${i}`, nodes: [node] };
    expect(problemsOf({ partners: [node] })).toEqual([`partners[0]${'.nodes[0]'.repeat(MAX_DEPTH - 1)}.nodes nests deeper than ${MAX_DEPTH} levels`]);
  });

  it('the shipped config/customers.json is valid', () => {
    const shipped = CustomerHierarchy.parse(JSON.parse(readFileSync('config/customers.json', 'utf8')));
    expect(shipped.partners().length).toBeGreaterThan(0);
  });

  it('property: a node is within an ancestor exactly when the ancestor subtree lists it', () => {
    const ids = ['P1', 'B1', 'B1a', 'B2', 'P2', 'C1', 'zz'];
    fc.assert(
      fc.property(fc.constantFrom(...ids), fc.constantFrom(...ids.slice(0, 6)), (id, ancestor) => {
        expect(hierarchy.isWithin(id, ancestor)).toBe(hierarchy.node(ancestor)!.subtree.includes(id));
      }),
    );
  });
});

const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    if (error instanceof ServiceError) return error.code;
    throw error;
  }
  return 'allowed';
};

describe('hierarchy authorizer (AUTH_MODE=jwt)', () => {
  const authorizer = createHierarchyAuthorizer(hierarchy);

  it('acts for the caller itself without a header, and for any node of its subtree with one', () => {
    const own = authorizer.authorize({ customerId: 'P1' }, undefined);
    expect(own).toMatchObject({ effectiveCustomerId: 'P1', partnerId: 'P1', visibleCustomerIds: ['P1', 'B1', 'B1a', 'B2'] });
    expect(authorizer.authorize({ customerId: 'P1' }, 'B1a')).toMatchObject({ effectiveCustomerId: 'B1a', partnerId: 'P1' });
    expect(authorizer.authorize({ customerId: 'B1' }, 'B1a').effectiveCustomerId).toBe('B1a');
  });

  it("a partner sees its brands' records; a brand sees its own subtree only", () => {
    const partner = authorizer.authorize({ customerId: 'P1' }, undefined);
    expect(['P1', 'B1', 'B1a', 'B2', 'C1', 'P2', '', null, undefined].map((o) => partner.canSee(o))).toEqual([true, true, true, true, false, false, false, false, false]);
    const brand = authorizer.authorize({ customerId: 'P1' }, 'B1');
    expect(['B1', 'B1a', 'B2', 'P1'].map((o) => brand.canSee(o))).toEqual([true, true, false, false]);
  });

  it("FORBIDDEN for a node outside the caller's subtree, an unknown node, or a caller the hierarchy does not know", () => {
    expect(refusal(() => authorizer.authorize({ customerId: 'P1' }, 'C1'))).toBe('FORBIDDEN');
    expect(refusal(() => authorizer.authorize({ customerId: 'P1' }, 'P2'))).toBe('FORBIDDEN');
    expect(refusal(() => authorizer.authorize({ customerId: 'B1' }, 'B2'))).toBe('FORBIDDEN');
    expect(refusal(() => authorizer.authorize({ customerId: 'B1' }, 'P1'))).toBe('FORBIDDEN');
    expect(refusal(() => authorizer.authorize({ customerId: 'P1' }, 'nobody'))).toBe('FORBIDDEN');
    expect(refusal(() => authorizer.authorize({ customerId: 'ghost' }, undefined))).toBe('FORBIDDEN');
    expect(refusal(() => authorizer.authorize({ customerId: undefined }, 'P1'))).toBe('FORBIDDEN');
  });
});

describe('open authorizer (AUTH_MODE=none)', () => {
  it('accepts any header; a known node sees its subtree, anything else only its own records', () => {
    const open = createOpenAuthorizer(hierarchy);
    expect(open.authorize({ customerId: undefined }, 'P1').canSee('B1')).toBe(true);
    const unknown = open.authorize({ customerId: undefined }, '100000108464');
    expect(unknown).toMatchObject({ effectiveCustomerId: '100000108464', partnerId: '100000108464', visibleCustomerIds: ['100000108464'] });
    expect([unknown.canSee('100000108464'), unknown.canSee('other')]).toEqual([true, false]);
    const none = createOpenAuthorizer(undefined).authorize({ customerId: undefined }, undefined);
    expect([none.effectiveCustomerId, none.canSee(''), none.canSee(undefined), none.canSee('x')]).toEqual([undefined, true, true, false]);
  });
});
