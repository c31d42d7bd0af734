import { loadAdminConfig } from '../../../src/cli/config';
import { runCli } from '../../../src/cli/program';
import { EXIT } from '../../../src/cli/exit-codes';
import type { CliIo } from '../../../src/cli/io';

/** `wholesale admin …`: arguments, settings and --dry-run output (no Kafka: a dry run never connects). */
function harness(env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (t) => void out.push(t),
    stderr: (t) => void err.push(t),
    readFile: async () => '',
    onInterrupt: () => () => undefined,
  };
  const run = (...argv: string[]) => runCli(argv, { io, loadAdminConfig: (overrides) => loadAdminConfig(overrides, { KAFKA_BROKERS: '127.0.0.1:9', ...env }) });
  return { run, out, err };
}

describe('wholesale admin partner add --dry-run', () => {
  it('prints the six topics and the thirteen rules of the partner', async () => {
    const { run, out, err } = harness();
    expect(await run('--json', 'admin', 'partner', 'add', 'P1', '--principal', 'User:partner-p1', '--dry-run')).toBe(EXIT.SUCCESS);
    expect(err).toEqual(['dry run: nothing was sent to Kafka']);
    const printed = JSON.parse(out.join('\n'));
    expect(printed.createdTopics).toEqual([
      'wholesale.partner.P1.portin.commands.v1',
      'wholesale.partner.P1.balance.commands.v1',
      'wholesale.partner.P1.portin.replies.v1',
      'wholesale.partner.P1.balance.replies.v1',
      'wholesale.partner.P1.portin.events.v1',
      'wholesale.partner.P1.balance.events.v1',
    ]);
    expect(printed.rules).toHaveLength(13);
    expect(printed.rules).toContainEqual({ principal: 'User:partner-p1', resourceType: 'group', patternType: 'prefixed', resourceName: 'wholesale.partner.P1.', operation: 'read' });
  });

  it('follows PARTNER_TOPIC_PREFIX and the configured command topics', async () => {
    const { run, out } = harness({ PARTNER_TOPIC_PREFIX: 'acme.p.', TOPIC_PORTIN_COMMANDS: 'acme.portin.commands' });
    expect(await run('admin', 'partner', 'add', 'P1', '--principal', 'User:p1', '--dry-run')).toBe(EXIT.SUCCESS);
    expect(out).toContain('  + User:p1 ALLOW write topic acme.portin.commands (literal)');
    expect(out).toContain('  + User:p1 ALLOW read topic acme.p.P1. (prefixed)');
    expect(out).toContain('  topic acme.p.P1.portin.replies.v1');
  });

  it.each([
    ['a principal without User:', ['admin', 'partner', 'add', 'P1', '--principal', 'partner-p1']],
    ['two principals in one', ['admin', 'partner', 'add', 'P1', '--principal', 'User:a;User:b']],
    ['a partner id that cannot name a topic', ['admin', 'partner', 'add', 'P.1', '--principal', 'User:p1']],
    ['no --principal', ['admin', 'partner', 'add', 'P1']],
    ['a partner prefix not ending in a dot', ['admin', 'partner', 'add', 'P1', '--principal', 'User:p1', '--dry-run']],
  ])('refuses %s as a usage error, before connecting', async (_what, argv) => {
    const { run, err } = harness(argv.includes('--dry-run') ? { PARTNER_TOPIC_PREFIX: 'no-dot' } : {});
    expect(await run(...argv)).toBe(EXIT.USAGE);
    expect(err.join('\n')).not.toBe('');
  });
});

describe('wholesale admin service-acls --dry-run', () => {
  it("grants Create on the service's own topics unless they are pre-created", async () => {
    const created = harness();
    await created.run('--json', 'admin', 'service-acls', '--principal', 'User:svc', '--dry-run');
    const precreated = harness();
    await precreated.run('--json', 'admin', 'service-acls', '--principal', 'User:svc', '--topics-precreated', '--dry-run');
    const creates = (lines: string[]) => JSON.parse(lines.join('\n')).rules.filter((rule: { operation: string }) => rule.operation === 'create');
    expect(creates(created.out)).toHaveLength(9);
    expect(creates(precreated.out)).toEqual([]);
    expect(JSON.parse(precreated.out.join('\n')).rules).toHaveLength(31);
  });

  it("grants nothing on the cluster: exactly-once outputs need no broker's right (the client sends AddPartitionsToTxn v3)", async () => {
    const cli = harness();
    await cli.run('--json', 'admin', 'service-acls', '--principal', 'User:svc', '--dry-run');
    expect(JSON.parse(cli.out.join('\n')).rules.filter((rule: { resourceType: string }) => rule.resourceType === 'cluster')).toEqual([]);
  });
});
