import { cyclesOf, readImportGraph, reachable } from '../../support/import-graph';

/**
 * The layering of docs/architecture.md, checked on the import graph of src/ and of the dev tools (type-only
 * imports included). Each rule prints the imports that break it.
 */
const graph = readImportGraph(['src', 'dev', 'bench']);
const files = [...graph.imports.keys()];
const inFolder = (folder: string) => (file: string) => file.startsWith(`${folder}/`);
const isBuiltin = (target: string) => target.startsWith('node:');

/** `file -> target` for every import of the files matching `from` whose target breaks the rule. */
function breaking(from: (file: string) => boolean, allowed: (target: string) => boolean): string[] {
  return files.filter(from).flatMap((file) =>
    graph.imports
      .get(file)!
      .filter((target) => !allowed(target))
      .map((target) => `${file} -> ${target}`),
  );
}

const importers = (target: string) => files.filter((file) => graph.imports.get(file)!.includes(target));

describe('dependency rules', () => {
  it('src/contract imports nothing of the project and no package (Node built-ins only)', () => {
    expect(breaking(inFolder('src/contract'), (target) => inFolder('src/contract')(target) || isBuiltin(target))).toEqual([]);
  });

  it('src/domain imports only the contract and itself', () => {
    expect(breaking(inFolder('src/domain'), (target) => inFolder('src/domain')(target) || inFolder('src/contract')(target) || isBuiltin(target))).toEqual([]);
  });

  it('only src/adapters/kafka imports the Kafka client (in src/ and dev/)', () => {
    expect(importers('@platformatic/kafka').filter((file) => !inFolder('bench')(file) && !inFolder('src/adapters/kafka')(file))).toEqual([]);
  });

  it('nothing in src/ or dev/ imports kafkajs: a dev dependency, for the tests and the benchmark that play partners on it', () => {
    expect(importers('kafkajs').filter((file) => inFolder('src')(file) || inFolder('dev')(file))).toEqual([]);
  });

  it('only src/adapters/redis imports ioredis (in src/ and dev/)', () => {
    expect(importers('ioredis').filter((file) => !inFolder('bench')(file) && !inFolder('src/adapters/redis')(file))).toEqual([]);
  });

  it('only src/adapters/registry imports the schema registry client and avsc', () => {
    const importing = ['@kafkajs/confluent-schema-registry', 'avsc'].flatMap(importers);
    expect(importing.filter((file) => inFolder('src')(file) && !inFolder('src/adapters/registry')(file))).toEqual([]);
  });

  it('the pipeline imports no adapter: it reaches storage and Kafka through its ports and the contract', () => {
    expect(breaking(inFolder('src/pipeline'), (target) => !inFolder('src/adapters')(target))).toEqual([]);
  });

  it('the pipeline imports nothing of the composition root (src/app wires the pipeline, never the other way)', () => {
    expect(breaking(inFolder('src/pipeline'), (target) => !inFolder('src/app')(target))).toEqual([]);
  });

  it("the command pipeline's stages (src/pipeline/stages) are composed by command-processor.ts alone, and import no other pipeline module that composes", () => {
    const outside = files.filter((file) => !inFolder('src/pipeline/stages')(file) && file !== 'src/pipeline/command-processor.ts');
    expect(
      outside.flatMap((file) =>
        graph.imports
          .get(file)!
          .filter(inFolder('src/pipeline/stages'))
          .map((target) => `${file} -> ${target}`),
      ),
    ).toEqual([]);
    const composers = ['src/pipeline/command-processor.ts', 'src/pipeline/batch-worker.ts', 'src/pipeline/np-responses.ts'];
    expect(breaking(inFolder('src/pipeline/stages'), (target) => !composers.includes(target))).toEqual([]);
  });

  it('src/app only composes: the span per record, the outcome log line, the envelope rules and the dead letters live in their layers', () => {
    expect(importers('src/shared/tracing.ts').filter(inFolder('src/app'))).toEqual([]);
    expect(importers('src/observability/logger.ts').filter(inFolder('src/app'))).toEqual([]);
    expect(importers('src/pipeline/envelope.ts').filter(inFolder('src/app'))).toEqual(['src/app/service.ts']); // wired there, defined in the pipeline
  });

  it('the webhooks core imports no adapter, client or app: it reaches Kafka, Redis and HTTP through src/webhooks/ports.ts', () => {
    expect(breaking(inFolder('src/webhooks'), (target) => !['src/adapters', 'src/client', 'src/app'].some((folder) => inFolder(folder)(target)))).toEqual([]);
  });

  it('the HTTP gateway reaches Kafka only through the client library: no Kafka adapter, no Kafka client, no service code', () => {
    const foreign = ['src/adapters/kafka', 'src/app', 'src/pipeline', 'src/handlers', 'src/cli'];
    expect(breaking(inFolder('src/gateway'), (target) => target !== '@platformatic/kafka' && target !== 'kafkajs' && !foreign.some((folder) => inFolder(folder)(target)))).toEqual([]);
  });

  it('the product (src/) imports nothing of the dev tools, the benchmark or the tests', () => {
    expect(breaking(inFolder('src'), (target) => !['dev', 'bench', 'test'].some((folder) => inFolder(folder)(target)))).toEqual([]);
  });

  it('has no import cycle between files', () => {
    expect(cyclesOf(graph.imports)).toEqual([]);
  });

  it('has no import cycle between the folders of src/', () => {
    const folderOf = (file: string) => file.split('/').slice(0, 2).join('/');
    const edges = new Map<string, string[]>();
    for (const file of files.filter(inFolder('src'))) {
      const targets = graph.imports
        .get(file)!
        .filter((target) => inFolder('src')(target) && folderOf(target) !== folderOf(file))
        .map(folderOf);
      edges.set(folderOf(file), [...new Set([...(edges.get(folderOf(file)) ?? []), ...targets])]);
    }
    expect(cyclesOf(edges)).toEqual([]);
  });

  it("the client library's entry drags in no service, CLI, dev or benchmark code, nor Redis, metrics, CLI or logging packages", () => {
    const dragged = [...reachable(graph, 'src/client/index.ts')];
    const forbidden = ['ioredis', 'prom-client', 'commander', 'pino'];
    const foreign = ['src/app', 'src/cli', 'src/entry', 'src/pipeline', 'src/handlers', 'src/adapters/redis', 'src/observability', 'dev', 'bench'];
    expect(dragged.filter((file) => forbidden.includes(file) || foreign.some((folder) => inFolder(folder)(file)))).toEqual([]);
  });
});

describe('the rules see a violation', () => {
  it('finds a cycle and reaches through imports', () => {
    const edges = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(cyclesOf(edges)).toEqual([['a', 'b', 'c']]);
    expect([...reachable({ imports: edges }, 'd')].sort()).toEqual(['a', 'b', 'c', 'd']);
  });
});
