import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PORT_STATUSES, PORT_TRIGGERS, TRANSITIONS, type Rule } from '../../../src/domain/portin/lifecycle';
import { REASON_CODES } from '../../../src/domain/portin/reason-codes';

/** docs/portin.md renders the lifecycle table and the reason codes: it must say what the code does. */
const doc = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'portin.md'), 'utf8');

const cell = (rule: Rule): string => {
  if (rule.action === 'move' || rule.action === 'replace') return `→ ${rule.to}`;
  if (rule.action === 'conflict') return 'CONFLICT';
  return rule.action === 'ignore' ? '·' : rule.action;
};

/** Every way out of every status the table allows, as `FROM --> TO` (a refused cancel goes back where it came from). */
function movesOfTheTable(): Set<string> {
  const cameFrom = PORT_STATUSES.filter((s) => destinations(TRANSITIONS[s].CancelPortIn).includes('CANCEL_PENDING'));
  const moves = new Set<string>();
  for (const status of PORT_STATUSES) {
    for (const trigger of PORT_TRIGGERS) {
      const rule = TRANSITIONS[status][trigger];
      const to = rule.action === 'resume' ? cameFrom : destinations(rule);
      for (const target of to) moves.add(`${status} --> ${target}`);
    }
  }
  return moves;
}
function destinations(rule: Rule): string[] {
  return rule.action === 'move' || rule.action === 'replace' ? [rule.to] : [];
}

/** The edges of a document's lifecycle diagram (mermaid stateDiagram), start and end states left out. */
function diagramEdges(markdown: string): Set<string> {
  const diagram = markdown.split('```mermaid\nstateDiagram-v2\n')[1].split('```')[0];
  return new Set([...diagram.matchAll(/^\s*(\w+) --> (\w+)/gm)].map(([, from, to]) => `${from} --> ${to}`));
}

describe('docs/portin.md lifecycle diagram', () => {
  it('shows every way out of every status the table allows, and no other', () => {
    expect([...diagramEdges(doc)].sort()).toEqual([...movesOfTheTable()].sort());
  });
});

describe('docs/portin.md', () => {
  it('renders the lifecycle table as the code has it', () => {
    const rendered = [
      `| status \\ trigger | ${PORT_TRIGGERS.join(' | ')} |`,
      `|${'---|'.repeat(PORT_TRIGGERS.length + 1)}`,
      ...PORT_STATUSES.map((s) => `| ${s} | ${PORT_TRIGGERS.map((t) => cell(TRANSITIONS[s][t])).join(' | ')} |`),
    ].join('\n');
    const documented = doc.split('<!-- lifecycle-matrix:start -->\n')[1].split('\n<!-- lifecycle-matrix:end -->')[0];
    expect(documented).toBe(rendered);
  });

  it('lists every reason code', () => {
    for (const { code, description } of Object.values(REASON_CODES)) expect(doc).toContain(`| ${code} | ${description} |`);
  });
});
