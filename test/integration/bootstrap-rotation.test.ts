import { createServer, type Server } from 'node:net';
import { ensureTopicsExist } from '../../src/adapters/kafka/admin-session';
import { createTopics, envFor, testConfig, testConnection, TestRequester } from '../support/harness';
import { WorkerProcess } from '../support/worker-process';

/**
 * A bootstrap broker that takes connections and serves nothing: what a proxy or load balancer in front of a
 * dead broker does (the nemesis's relayed listeners, a cloud endpoint). It is first in KAFKA_BROKERS and the
 * real broker second. The client's retries of listTopics, FindCoordinator and the group's FindCoordinator
 * must move on to the next broker, as its metadata calls do (patches/@platformatic+kafka, fix 5,
 * docs/decisions/kafka-client.md); without that the worker fails to start ("Listing topics failed").
 */
const ELIGIBILITY = 'wholesale.portin.v1.CheckPortInEligibility';

describe('a bootstrap broker that accepts connections and closes them (real broker behind it)', () => {
  let closer: Server;
  let closerAddress: string;

  beforeAll(async () => {
    closer = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => closer.listen(0, '127.0.0.1', resolve));
    closerAddress = `127.0.0.1:${(closer.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => closer.close(() => resolve())));

  it('topics are listed and created through the broker after it', async () => {
    const config = testConfig();
    const connection = { ...testConnection(config), brokers: [closerAddress, ...config.kafka.brokers] };
    const created = await ensureTopicsExist(connection, [`${config.topics.balanceCommands}.rotation`], 1, 1);
    expect(created).toEqual([`${config.topics.balanceCommands}.rotation`]);
  }, 60_000); // without the fix the client's retries hang on the first broker

  it.each(['at-least-once', 'exactly-once'])('%s: a worker started with it first in KAFKA_BROKERS joins its group and answers', async (delivery) => {
    const config = testConfig();
    await createTopics(config);
    const requester = await TestRequester.start(config);
    const worker = await WorkerProcess.start({ ...envFor(config), KAFKA_BROKERS: [closerAddress, ...config.kafka.brokers].join(','), KAFKA_DELIVERY: delivery }, `rotation-${delivery}`, 60_000);
    try {
      const reply = await requester.send('portinCommands', ELIGIBILITY, { gpsi: `1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}` });
      expect(reply.value.status).toBe('Success');
    } finally {
      await worker.signal('SIGKILL');
      await requester.stop();
    }
  });
});
