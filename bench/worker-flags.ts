/**
 * Node flags of the worker in production — package.json `start` and the Dockerfile's CMD — which the
 * benchmark starts its workers with too (test/unit/dev/worker-flags.test.ts keeps the three in step):
 * a young generation of 8 MiB semi-spaces instead of 16, docs/operations.md.
 */
export const WORKER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8'];
