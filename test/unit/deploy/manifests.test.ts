import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { kustomizationFolder, renderKustomization, strategicMerge, type Manifest } from '../../support/kustomize-render';
import { typeErrors } from '../../support/type-check';

// deploy/ rendered for every overlay (test/support/kustomize-render.ts: kustomize itself is not on npm) and
// every object validated against its Kubernetes schema by the kubernetes-models packages (the API's
// OpenAPI schemas, KEDA's and the prometheus-operator's CRDs). Then what the objects must mean together.
const ROOT = join(__dirname, '..', '..', '..');
const OVERLAYS = readdirSync(join(ROOT, 'deploy', 'overlays'));

// The models are ES modules whose package exports name only `import`: loaded by path with Node's own
// require, which Jest's loader cannot do.
const { createRequire } = process.getBuiltinModule('node:module');
const load = (module: string) => createRequire(__filename)(join(ROOT, 'node_modules', module, 'index.js')) as Record<string, new (data: object) => { validate(): void }>;
const MODELS: Record<string, Record<string, new (data: object) => { validate(): void }>> = {
  v1: load('kubernetes-models/v1'),
  'apps/v1': load('kubernetes-models/apps/v1'),
  'policy/v1': load('kubernetes-models/policy/v1'),
  'networking.k8s.io/v1': load('kubernetes-models/networking.k8s.io/v1'),
  'keda.sh/v1alpha1': load('@kubernetes-models/keda/keda.sh/v1alpha1'),
  'monitoring.coreos.com/v1': load('@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1'),
};

/** Every schema problem of `object`, as `Kind/name: message`; an unknown kind is one. */
function schemaProblems(object: Manifest): string[] {
  const Model = MODELS[object.apiVersion]?.[object.kind];
  if (!Model) return [`${object.kind}/${object.metadata.name}: no schema for ${object.apiVersion} ${object.kind}`];
  try {
    new Model(object).validate();
    return [];
  } catch (error) {
    return [`${object.kind}/${object.metadata.name}: ${(error as Error).message}`];
  }
}

// The schemas above accept fields they do not know (a misspelt `livenesProbe` passes them); the models'
// TypeScript types do not: each object is type-checked as an object literal of its kind's interface.
const TYPES: Record<string, string> = {
  v1: 'kubernetes-models/v1',
  'apps/v1': 'kubernetes-models/apps/v1',
  'policy/v1': 'kubernetes-models/policy/v1',
  'networking.k8s.io/v1': 'kubernetes-models/networking.k8s.io/v1',
  'keda.sh/v1alpha1': '@kubernetes-models/keda/keda.sh/v1alpha1',
  'monitoring.coreos.com/v1': '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1',
};

function fieldProblems(objects: Manifest[]): string[] {
  const source = objects.map((object, i) => `export const o${i}: import('${TYPES[object.apiVersion]}').I${object.kind} = ${JSON.stringify(object)};`).join('\n');
  return typeErrors({ [join(ROOT, 'test', 'unit', 'deploy', 'manifests.virtual.ts')]: source }, { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext });
}

const find = (objects: Manifest[], kind: string, name: string): any => {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
};
const containersOf = (workload: any): any[] => workload.spec.template.spec.containers;

describe.each(OVERLAYS)('deploy/overlays/%s', (overlay) => {
  const objects = renderKustomization(kustomizationFolder(ROOT, overlay));

  it('renders objects that all fit their Kubernetes schemas', () => {
    expect(objects.length).toBeGreaterThan(10);
    expect(objects.flatMap(schemaProblems)).toEqual([]);
  });

  it('names only fields the Kubernetes, KEDA and prometheus-operator types know', () => {
    expect(fieldProblems(objects)).toEqual([]);
  });

  it('scales the workers on lag up to the partition count, never beyond', () => {
    const config = find(objects, 'ConfigMap', 'wholesale-config');
    const scaler = find(objects, 'ScaledObject', 'wholesale-worker');
    expect(scaler.spec.maxReplicaCount).toBe(Number(config.data.TOPIC_PARTITIONS));
    expect(scaler.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'wholesale-worker' });
    expect(scaler.spec.triggers[0].metadata).toMatchObject({ bootstrapServers: config.data.KAFKA_BROKERS, consumerGroup: config.data.KAFKA_GROUP_ID });
  });

  it('gives each worker its pod name as its static group member id, and each gateway its pod name as its instance id', () => {
    const fromPodName = { valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } };
    expect(containersOf(find(objects, 'StatefulSet', 'wholesale-worker'))[0].env).toContainEqual({ name: 'KAFKA_GROUP_INSTANCE_ID', ...fromPodName });
    expect(containersOf(find(objects, 'Deployment', 'wholesale-gateway'))[0].env).toContainEqual({ name: 'GATEWAY_INSTANCE_ID', ...fromPodName });
  });

  it('gives every container requests and limits, a readiness probe on /readyz and a liveness probe on /healthz of a port it opens', () => {
    for (const workload of objects.filter((object) => ['StatefulSet', 'Deployment'].includes(object.kind))) {
      for (const container of containersOf(workload)) {
        const ports = (container.ports as { name: string }[]).map((port) => port.name);
        expect([workload.metadata.name, Object.keys(container.resources.requests).sort(), Object.keys(container.resources.limits).sort()]).toEqual([
          workload.metadata.name,
          ['cpu', 'memory'],
          ['cpu', 'memory'],
        ]);
        expect([workload.metadata.name, container.readinessProbe.httpGet.path, ports.includes(container.readinessProbe.httpGet.port)]).toEqual([workload.metadata.name, '/readyz', true]);
        expect([workload.metadata.name, container.livenessProbe.httpGet.path, ports.includes(container.livenessProbe.httpGet.port)]).toEqual([workload.metadata.name, '/healthz', true]);
      }
    }
  });

  it('keeps secrets out of the manifests: every secret setting is a reference to the Secret the operator creates', () => {
    expect(objects.filter((object) => object.kind === 'Secret')).toEqual([]);
    const config = find(objects, 'ConfigMap', 'wholesale-config');
    expect(Object.keys(config.data).filter((name) => /PASSWORD|SECRET|KEY$|REDIS_URL/.test(name))).toEqual([]);
    for (const workload of objects.filter((object) => ['StatefulSet', 'Deployment'].includes(object.kind))) {
      const secretSettings = containersOf(workload).flatMap((container) => (container.env ?? []).filter((variable: any) => /REDIS_URL|DLQ_ENCRYPTION_KEY|PASSWORD/.test(variable.name)));
      for (const variable of secretSettings)
        expect([workload.metadata.name, variable.name, variable.valueFrom?.secretKeyRef?.name]).toEqual([workload.metadata.name, variable.name, 'wholesale-secrets']);
    }
  });

  it("runs the workers exactly-once, each slice's Redis writes acknowledged by a replica before it is answered", () => {
    const { data } = find(objects, 'ConfigMap', 'wholesale-config');
    // the worker's default delivery is exactly-once: the config may leave it out, never set anything else
    expect(data.KAFKA_DELIVERY ?? 'exactly-once').toBe('exactly-once');
    // acknowledged means durable: a failover must not lose a change already answered (docs/reliability.md)
    expect(Number(data.REDIS_REPLICAS_TO_ACK)).toBeGreaterThanOrEqual(1);
  });

  it('has a disruption budget selecting each workload, and scrapes the pods that serve /metrics', () => {
    for (const workload of objects.filter((object) => ['StatefulSet', 'Deployment'].includes(object.kind))) {
      const labels = (workload as any).spec.template.metadata.labels;
      const budgets = objects.filter(
        (object) => object.kind === 'PodDisruptionBudget' && Object.entries((object as any).spec.selector.matchLabels).every(([key, value]) => labels[key] === value),
      );
      expect([workload.metadata.name, budgets.length]).toEqual([workload.metadata.name, 1]);
    }
    const scraped = find(objects, 'PodMonitor', 'wholesale').spec.selector.matchLabels;
    const scrapedWorkloads = objects.filter(
      (object) => ['StatefulSet', 'Deployment'].includes(object.kind) && Object.entries(scraped).every(([key, value]) => (object as any).spec.template.metadata.labels[key] === value),
    );
    expect(scrapedWorkloads.map((object) => object.metadata.name).sort()).toEqual(['wholesale-webhooks', 'wholesale-worker']);
  });
});

describe('the render', () => {
  it('merges a patch the strategic way: maps deep, named list items by name, other values replaced', () => {
    const base = {
      spec: {
        replicas: 1,
        containers: [
          { name: 'a', image: 'x', args: ['1'] },
          { name: 'b', image: 'y' },
        ],
      },
    };
    const patch = {
      spec: {
        replicas: 3,
        containers: [
          { name: 'b', image: 'z' },
          { name: 'c', image: 'w' },
        ],
      },
    };
    expect(strategicMerge(base, patch)).toEqual({
      spec: {
        replicas: 3,
        containers: [
          { name: 'a', image: 'x', args: ['1'] },
          { name: 'b', image: 'z' },
          { name: 'c', image: 'w' },
        ],
      },
    });
  });

  it('the schemas refuse a wrong value, the types a misspelt field', () => {
    const worker = find(renderKustomization(kustomizationFolder(ROOT, 'small')), 'StatefulSet', 'wholesale-worker');
    expect(schemaProblems(strategicMerge(worker, { spec: { replicas: 'two' } }) as Manifest)).toEqual([expect.stringContaining('replicas must be integer')]);
    expect(fieldProblems([strategicMerge(worker, { spec: { template: { spec: { containers: [{ name: 'worker', livenesProbe: {} }] } } } }) as Manifest])).toEqual([
      expect.stringMatching(/livenesProbe.*does not exist in type 'IContainer'/),
    ]);
  });
});
