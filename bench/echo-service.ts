import { echoAnswer, startFloorWorker } from './floor-worker';

/**
 * The benchmark's floor (npm run bench, docs/benchmarks.md; not for production): the service's
 * request/reply path without its state (bench/floor-worker.ts) — every command is answered with a fixed
 * success record of its operation, without Redis, handler logic or events.
 */
startFloorWorker('echo-worker', echoAnswer);
