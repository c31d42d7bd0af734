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
