import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { startService, type RunningService } from '../../src/app/service';
import { startLocalRedis } from '../../dev/stack';
import { HEADER } from '../../src/contract/headers';
import { startTestService, testConfig, TestRequester } from '../support/harness';
import { createCommand } from '../support/portin/journey';
import { httpGet, sampleSum, scrape } from '../support/prometheus';
import { until } from '../support/until';
import { useService } from '../support/service-fixture';

const ELIGIBILITY = 'wholesale.portin.v1.CheckPortInEligibility';
const randomGpsi = () => `1${Math.floor(1e10 + Math.random() * 9e10)}`;

interface Readyz {
  status: number;
  body: { ready: boolean; failed: string[]; checks: Record<string, { ok: boolean; detail?: string }> };
}

const readyz = async (port: number): Promise<Readyz> => {
  const { status, body } = await httpGet(port, '/readyz');
  return { status, body: JSON.parse(body) };
};

describe('HTTP side port: health, readiness and metrics of a running worker', () => {
  const fx = useService({ env: { READINESS_CACHE_MS: '200' }, start: { httpPort: 0 }, awaitJoin: false, requester: true });

  it('answers /healthz at once and turns /readyz ready once the consumer joined, every check named', async () => {
    const port = fx.service.httpPort!;
    expect(port).toBeGreaterThan(0);
    const health = await httpGet(port, '/healthz');
    expect({ status: health.status, body: JSON.parse(health.body) }).toEqual({ status: 200, body: { status: 'ok' } });

    const seen: Readyz[] = [];
    const ready = await until('/readyz 200', async () => {
      const answer = await readyz(port);
      seen.push(answer);
      return answer.status === 200 ? answer : undefined;
    });
    // Before the group join (if the probe got there first) only the consumer check may fail.
    for (const early of seen.filter((s) => s.status !== 200)) expect(early.body.failed).toEqual(['consumer']);
    expect(ready.body.ready).toBe(true);
    expect(Object.keys(ready.body.checks).sort()).toEqual(['consumer', 'kafka', 'redis', 'registry']);
    expect(Object.values(ready.body.checks).every((check) => check.ok)).toBe(true);
    expect(ready.body.checks.consumer.detail).toMatch(/^[1-9]\d* partition\(s\) assigned$/);
    expect((await httpGet(port, '/nope')).status).toBe(404);
  });

  it('moves the /metrics counters with the traffic sent: outcomes, durations, ages, dead letters, Redis calls, lag', async () => {
    const port = fx.service.httpPort!;
    const before = await scrape(port);
    const good = 7;
    const bad = 3;
    const replies = await Promise.all([
      ...Array.from({ length: good }, () => fx.requester.send('portinCommands', ELIGIBILITY, { gpsi: randomGpsi() })),
      ...Array.from({ length: bad }, () => fx.requester.send('portinCommands', ELIGIBILITY, { gpsi: '12ab' })),
    ]);
    expect(replies.map((r) => r.headers[HEADER.status]).sort()).toEqual([...Array(bad).fill('BAD_REQUEST'), ...Array(good).fill('Success')]);
    // A change is looked up first and its outcome recorded; a refusal that depends on the moment (a cancel of a
    // port-in that does not exist yet) is looked up but not recorded.
    const cancel = await fx.requester.send('portinCommands', 'wholesale.portin.v1.CancelPortIn', { partnerTransactionId: null, gpsi: randomGpsi() });
    expect(cancel.headers[HEADER.status]).toBe('NOT_FOUND');
    const created = await fx.requester.send('portinCommands', 'wholesale.portin.v1.CreatePortIn', createCommand(randomGpsi()));
    expect(created.headers[HEADER.status]).toBe('Success');
    // A record that is not Avro goes to the dead-letter topic; its requester gets a BAD_REQUEST reply.
    const poisonId = randomUUID();
    const poisonReply = fx.requester.awaitReply(poisonId);
    await fx.requester.sendRaw(fx.config.topics.portinCommands, { key: 'poison', value: Buffer.from('not avro'), headers: { [HEADER.correlationId]: poisonId } });
    await poisonReply;

    // Metrics are recorded before the batch is sent: by the time a reply arrived its command is counted,
    // but the dead letter's acknowledgement may land a moment after the reply.
    const after = await until('the dead letter counted', async () => {
      const samples = await scrape(port);
      return sampleSum(samples, 'wholesale_dead_letters_total') > sampleSum(before, 'wholesale_dead_letters_total') ? samples : undefined;
    });
    const moved = (name: string, labels: Record<string, string> = {}) => sampleSum(after, name, labels) - sampleSum(before, name, labels);
    expect(moved('wholesale_commands_total', { operation: 'CheckPortInEligibility', outcome: 'Success' })).toBe(good);
    expect(moved('wholesale_commands_total', { operation: 'CheckPortInEligibility', outcome: 'BAD_REQUEST' })).toBe(bad);
    expect(moved('wholesale_commands_total', { outcome: 'DEAD_LETTER' })).toBe(1);
    expect(moved('wholesale_dead_letters_total', { reason: 'NOT_AVRO' })).toBe(1);
    expect(moved('wholesale_command_duration_seconds_count', { operation: 'CheckPortInEligibility' })).toBe(good + bad);
    expect(moved('wholesale_command_age_seconds_count', { operation: 'CheckPortInEligibility' })).toBe(good + bad);
    // A change starts from one read of its number (its recorded outcome, the request, the subscription's
    // status): the create reads it once, the cancel of a number without a request never gets that far.
    expect(moved('wholesale_redis_call_duration_seconds_count', { operation: 'portinRead', result: 'ok' })).toBe(1);
    expect(moved('wholesale_redis_call_duration_seconds_count', { operation: 'replyCache.get' })).toBe(0);
    expect(sampleSum(after, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(sampleSum(after, 'wholesale_consumer_assigned_partitions')).toBe(fx.config.kafka.topicPartitions * fx.service.consumedTopics.length);

    // Lag per partition of each consumed topic, and it drains to 0 once the batches are committed.
    const lagSeries = after.filter((s) => s.name === 'wholesale_consumer_lag');
    expect(lagSeries.map((s) => `${s.labels.topic}/${s.labels.partition}`).sort()).toEqual(
      fx.service.consumedTopics.flatMap((t) => [...Array(fx.config.kafka.topicPartitions).keys()].map((p) => `${t}/${p}`)).sort(),
    );
    await until('lag 0', async () => (sampleSum(await scrape(port), 'wholesale_consumer_lag') === 0 ? true : undefined));
  });
});

describe('readiness follows Redis', () => {
  it('is ready with Redis up, names redis when it is stopped, and is ready again when it is back', async () => {
    // A redis-server of this test's own, so it can be stopped without touching anyone else's.
    const redis = await startLocalRedis({ appendOnly: false });
    const config = testConfig({ REDIS_URL: redis.url, READINESS_CACHE_MS: '100', READINESS_PROBE_TIMEOUT_MS: '500' });
    let service: RunningService | undefined;
    try {
      service = await startTestService(config, { httpPort: 0 });
      const port = service.httpPort!;
      await until('ready', async () => ((await readyz(port)).status === 200 ? true : undefined));

      await redis.stop();
      const down = await until('not ready', async () => {
        const answer = await readyz(port);
        return answer.status === 503 ? answer : undefined;
      });
      expect(down.body).toMatchObject({ ready: false, failed: ['redis'] });
      expect(down.body.checks.redis.ok).toBe(false);
      expect(down.body.checks.redis.detail).toBeTruthy();
      // Liveness is not readiness: the process is fine, only a dependency is away.
      expect((await httpGet(port, '/healthz')).status).toBe(200);

      await redis.start();
      await until('ready again', async () => ((await readyz(port)).status === 200 ? true : undefined));
    } finally {
      await service?.stop();
      await redis.dispose();
    }
  });
});

describe('logs an operator can follow', () => {
  it('logs the effective configuration once at start, and every line about a command carries its correlation id', async () => {
    const lines: Record<string, any>[] = [];
    const log = pino({ level: 'debug' }, new Writable({ write: (chunk, _encoding, done) => (lines.push(JSON.parse(String(chunk))), done()) }));
    const config = testConfig({ REDIS_KEY_PREFIX: `logs${randomUUID().slice(0, 6)}:` });
    const service = await startService(config, log);
    const requester = await TestRequester.start(config);
    try {
      await service.joined;
      const startup = lines.filter((l) => l.msg === 'effective configuration');
      expect(startup).toHaveLength(1);
      expect(startup[0].config).toMatchObject({ groupId: config.groupId, topics: config.topics, kafka: { brokers: config.kafka.brokers } });

      const ids = [randomUUID(), randomUUID(), randomUUID()];
      await requester.send('portinCommands', ELIGIBILITY, { gpsi: randomGpsi() }, { correlationId: ids[0] });
      await requester.send('portinCommands', ELIGIBILITY, { gpsi: 'bad' }, { correlationId: ids[1] });
      const poisonReply = requester.awaitReply(ids[2]);
      await requester.sendRaw(config.topics.portinCommands, { key: 'k', value: Buffer.from('not avro'), headers: { [HEADER.correlationId]: ids[2] } });
      await poisonReply;
      const handled = await until('three command lines', async () => {
        const found = lines.filter((l) => l.msg === 'command handled' && ids.includes(l.correlationId));
        return found.length === 3 ? found : undefined;
      });
      expect(handled.map((l) => [l.correlationId, l.outcome])).toEqual([
        [ids[0], 'Success'],
        [ids[1], 'BAD_REQUEST'],
        [ids[2], 'DEAD_LETTER'],
      ]);
      // Any line naming a record (its offset) or an operation belongs to one command and carries its id.
      const aboutCommands = lines.filter((l) => l.offset !== undefined || l.operation !== undefined);
      expect(aboutCommands.length).toBeGreaterThanOrEqual(3);
      expect(aboutCommands.filter((l) => typeof l.correlationId !== 'string' || l.correlationId === '')).toEqual([]);
    } finally {
      await requester.stop();
      await service.stop();
    }
  });
});
