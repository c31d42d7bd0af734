import type { FieldProblem } from '../contract/errors';
import { Problems, checkArray, checkString, type StringRule } from '../domain/validation/problems';

/**
 * The customer hierarchy: partners (root wholesale customers) and their sub nodes (brands, and brands of
 * brands). A caller acts within its own subtree: a partner for itself and every brand below it, a brand
 * for itself and its own sub nodes. Pure: built from the parsed JSON of config/customers.json.
 */
export interface CustomerNode {
  readonly id: string;
  readonly name: string;
  /** Undefined for a partner (a root). */
  readonly parentId?: string;
  /** The root of this node's tree: the partner accounted for its commands (rate limit). */
  readonly partnerId: string;
  /** This node and every node below it, this node first. */
  readonly subtree: readonly string[];
}

/** Node ids travel in the wholesaleCustomerId header and in Redis hash tags: a conservative alphabet. */
export const CUSTOMER_ID: StringRule = { required: true, min: 1, max: 64, pattern: /^[A-Za-z0-9._-]+$/, patternText: 'letters, digits, . _ -' };
const NAME: StringRule = { min: 1, max: 200 };
export const MAX_DEPTH = 8;
export const MAX_NODES = 100_000;
const MAX_CHILDREN = 10_000;

export class HierarchyError extends Error {
  constructor(readonly problems: FieldProblem[]) {
    super(`invalid customer hierarchy: ${problems.map((p) => `${p.path} ${p.reason}`).join('; ')}`);
    this.name = 'HierarchyError';
  }
}

interface Draft {
  id: string;
  name: string;
  parentId?: string;
  partnerId: string;
  children: string[];
}

export class CustomerHierarchy {
  private constructor(private readonly nodes: ReadonlyMap<string, CustomerNode>) {}

  /** Validates the whole file and lists every problem at once (HierarchyError). */
  static parse(raw: unknown): CustomerHierarchy {
    const problems = new Problems();
    const drafts = new Map<string, Draft>();
    const object = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
    if (!object) problems.add('(file)', 'must be a JSON object with a "partners" array');
    const partners = object ? checkArray(problems, 'partners', object.partners, { required: true, minItems: 1, maxItems: MAX_CHILDREN }) : undefined;
    const visit = (value: unknown, path: string, parent: Draft | undefined, depth: number): void => {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        problems.add(path, 'must be an object with an "id"');
        return;
      }
      const node = value as Record<string, unknown>;
      if (!checkString(problems, `${path}.id`, node.id, CUSTOMER_ID)) return;
      const id = node.id as string;
      if (drafts.has(id)) {
        problems.add(`${path}.id`, `duplicates ${id}: every node id must be unique across all partners`);
        return;
      }
      if (drafts.size >= MAX_NODES) {
        problems.add(path, `exceeds ${MAX_NODES} nodes in total`);
        return;
      }
      checkString(problems, `${path}.name`, node.name, NAME);
      const draft: Draft = { id, name: typeof node.name === 'string' ? node.name : id, parentId: parent?.id, partnerId: parent?.partnerId ?? id, children: [] };
      drafts.set(id, draft);
      parent?.children.push(id);
      const children = checkArray(problems, `${path}.nodes`, node.nodes, { maxItems: MAX_CHILDREN });
      if (!children || children.length === 0) return;
      if (depth >= MAX_DEPTH) {
        problems.add(`${path}.nodes`, `nests deeper than ${MAX_DEPTH} levels`);
        return;
      }
      children.forEach((child, i) => visit(child, `${path}.nodes[${i}]`, draft, depth + 1));
    };
    partners?.forEach((partner, i) => visit(partner, `partners[${i}]`, undefined, 1));
    if (!problems.ok) throw new HierarchyError(problems.list);
    return new CustomerHierarchy(finish(drafts));
  }

  node(id: string | undefined): CustomerNode | undefined {
    return id === undefined ? undefined : this.nodes.get(id);
  }

  /** True when `id` is `ancestorId` or lies below it. */
  isWithin(id: string | null | undefined, ancestorId: string): boolean {
    for (let node = id == null ? undefined : this.nodes.get(id); node; node = node.parentId === undefined ? undefined : this.nodes.get(node.parentId)) {
      if (node.id === ancestorId) return true;
    }
    return false;
  }

  get size(): number {
    return this.nodes.size;
  }

  partners(): CustomerNode[] {
    return [...this.nodes.values()].filter((n) => n.parentId === undefined);
  }
}

function finish(drafts: ReadonlyMap<string, Draft>): Map<string, CustomerNode> {
  const subtreeOf = (id: string): string[] => [id, ...drafts.get(id)!.children.flatMap(subtreeOf)];
  const nodes = new Map<string, CustomerNode>();
  for (const draft of drafts.values()) {
    nodes.set(draft.id, { id: draft.id, name: draft.name, parentId: draft.parentId, partnerId: draft.partnerId, subtree: subtreeOf(draft.id) });
  }
  return nodes;
}
