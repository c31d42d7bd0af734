import { Kafka, logLevel } from 'kafkajs';
import { createTopics, envFor, testConfig, TestRequester } from '../support/harness';
import { WorkerProcess } from '../support/worker-process';

/** The worker as it runs in production: a separate process, stopped by SIGTERM. */
const ELIGIBILITY = 'wholesale.portin.v1.CheckPortInEligibility';

describe('graceful shutdown', () => {
  it('on SIGTERM finishes in-flight work, commits every handled offset and exits 0', async () => {
    const config = testConfig();
    const groupId = config.groupId;
    await createTopics(config);
    const worker = await WorkerProcess.start(envFor(config), 'worker', 60000);
    const requester = await TestRequester.start(config);
    try {
      const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => requester.send('portinCommands', ELIGIBILITY, { gpsi: `1555000${String(i).padStart(4, '0')}` })));
      expect(replies.every((r) => r.value.status === 'Success')).toBe(true);
      expect(await worker.signal('SIGTERM')).toBe(0);
      expect(worker.output()).toContain('service stopped');

      const admin = new Kafka({ brokers: config.kafka.brokers, logLevel: logLevel.NOTHING }).admin();
      await admin.connect();
      const [committed] = await admin.fetchOffsets({ groupId, topics: [config.topics.portinCommands] });
      const ends = await admin.fetchTopicOffsets(config.topics.portinCommands);
      await admin.disconnect();
      for (const end of ends) {
        const partition = committed.partitions.find((p) => p.partition === end.partition);
        expect({ partition: end.partition, committed: partition?.offset }).toEqual({ partition: end.partition, committed: end.high });
      }
    } finally {
      await worker.signal('SIGKILL');
      await requester.stop();
    }
  });
});
