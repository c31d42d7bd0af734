// Projects: unit (pure logic, no I/O), integration (one real stack per run, files one at a time), stack, faults.

const transform = { '^.+\\.ts$': ['ts-jest', {}] };
// An ES module only, loaded by Node's require instead of Jest's (see the file).
const moduleNameMapper = { '^@platformatic/kafka$': '<rootDir>/test/support/platformatic-kafka.cjs' };
module.exports = {
  testTimeout: 120000,
  maxWorkers: 1,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform,
      moduleNameMapper,
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      transform,
      moduleNameMapper,
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      // Heavier topologies of the local stack (Kafka cluster, SASL, Redis Cluster, restarts): npm run test:stack.
      displayName: 'stack',
      testEnvironment: 'node',
      transform,
      moduleNameMapper,
      testMatch: ['<rootDir>/test/stack/**/*.test.ts'],
    },
    {
      // Fault injection on servers and workers the suite starts itself (npm run test:faults, docs/reliability.md).
      displayName: 'faults',
      testEnvironment: 'node',
      transform,
      moduleNameMapper,
      testMatch: ['<rootDir>/test/faults/**/*.test.ts'],
      globalSetup: '<rootDir>/test/faults/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/faults/support/global-teardown.ts',
    },
    {
      // A fault schedule drawn from a seed under real partners, the history checked (npm run test:nemesis, docs/reliability.md).
      displayName: 'nemesis',
      testEnvironment: 'node',
      transform,
      moduleNameMapper,
      testMatch: ['<rootDir>/test/nemesis/**/*.test.ts'],
    },
  ],
};
