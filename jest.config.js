/** Two projects: unit (pure logic, no I/O) and integration (one real stack per run). */
const transform = { '^.+\\.ts$': ['ts-jest', { isolatedModules: true }] };
module.exports = {
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform,
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      transform,
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      testTimeout: 120000,
      maxWorkers: 1,
    },
    {
      // Heavier topologies of the local stack (Kafka cluster, SASL, Redis Cluster, restarts): npm run test:stack.
      displayName: 'stack',
      testEnvironment: 'node',
      transform,
      testMatch: ['<rootDir>/test/stack/**/*.test.ts'],
      testTimeout: 300000,
    },
  ],
};
