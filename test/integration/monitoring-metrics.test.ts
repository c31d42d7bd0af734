import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { parser } from '@prometheus-io/lezer-promql';
import { startWebhookDispatcher } from '../../src/app/webhooks';
import { loadWebhookConfig } from '../../src/webhooks/config';
import { envFor, testLogger } from '../support/harness';
import { useService } from '../support/service-fixture';

// The Grafana dashboard and the alert rules of deploy/ name only metrics the service exposes: every metric
// their PromQL selects is in the /metrics of a running worker or a running webhook dispatcher.
const ROOT = join(__dirname, '..', '..');

/** The metric names a PromQL expression selects; throws on an expression that does not parse. */
function metricsSelectedBy(expr: string): string[] {
  const names: string[] = [];
  parser.parse(expr).iterate({
    enter: (node) => {
      if (node.type.isError) throw new Error(`not PromQL at ${node.from}: ${expr}`);
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector') names.push(expr.slice(node.from, node.to));
    },
  });
  return names;
}

/** The series names a /metrics text can hold: each `# TYPE`'s name, and a histogram's or summary's own suffixes. */
function exposedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name);
    if (type === 'histogram') ['_bucket', '_sum', '_count'].forEach((suffix) => names.add(`${name}${suffix}`));
    if (type === 'summary') ['_sum', '_count'].forEach((suffix) => names.add(`${name}${suffix}`));
  }
  return names;
}

const dashboardExprs = (): string[] =>
  (JSON.parse(readFileSync(join(ROOT, 'deploy', 'monitoring', 'wholesale-dashboard.json'), 'utf8')) as { panels: { targets: { expr: string }[] }[] }).panels.flatMap((panel) =>
    panel.targets.map((target) => target.expr),
  );
const ruleExprs = (): string[] =>
  parseAllDocuments(readFileSync(join(ROOT, 'deploy', 'base', 'monitoring.yaml'), 'utf8'))
    .map((document) => document.toJS())
    .filter((object) => object.kind === 'PrometheusRule')
    .flatMap((rule) => rule.spec.groups.flatMap((group: { rules: { expr: string }[] }) => group.rules.map((r) => r.expr)));

describe('the dashboard and the alert rules', () => {
  const fx = useService({ start: { httpPort: 0 } });

  it('select only metrics a running worker or webhook dispatcher exposes', async () => {
    const worker = await (await fetch(`http://127.0.0.1:${fx.service.httpPort}/metrics`)).text();
    const dispatcher = await startWebhookDispatcher(
      loadWebhookConfig({ ...process.env, ...envFor(fx.config), HTTP_PORT: '0', HTTP_HOST: '127.0.0.1', LOG_LEVEL: 'silent' }),
      testLogger(fx.config),
    );
    let webhooks: string;
    try {
      webhooks = await (await fetch(`http://127.0.0.1:${dispatcher.opsPort}/metrics`)).text();
    } finally {
      await dispatcher.stop();
    }
    const exposed = new Set([...exposedNames(worker), ...exposedNames(webhooks)]);
    const selected = [...dashboardExprs(), ...ruleExprs()].flatMap(metricsSelectedBy);
    expect(selected.length).toBeGreaterThan(20);
    expect([...new Set(selected)].filter((name) => !exposed.has(name))).toEqual([]);
  });

  it('the check sees a name that is not exposed, and an expression that is not PromQL', () => {
    expect(metricsSelectedBy('sum by (le) (rate(wholesale_no_such_metric_bucket{a="b"}[5m])) / absent(other)')).toEqual(['wholesale_no_such_metric_bucket', 'other']);
    expect(() => metricsSelectedBy('sum(rate(wholesale_commands_total[5m]')).toThrow('not PromQL');
  });
});
