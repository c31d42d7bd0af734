import { loadConfig } from '../../../src/app/config';
import { ServiceMetrics } from '../../../src/observability/metrics';
import { DLQ_HEADER } from '../../../src/contract/headers';

const { topics } = loadConfig({ KAFKA_BROKERS: 'k:1', SCHEMA_REGISTRY_URL: 'http://r', REDIS_URL: 'redis://x', AUTH_MODE: 'none' });

const valueOf = async (metrics: ServiceMetrics, name: string, labels: Record<string, string>): Promise<number | undefined> => {
  const metric = await metrics.registry.getSingleMetric(name)!.get();
  const match = metric.values.find((v) => Object.entries(labels).every(([k, l]) => String(v.labels[k]) === l));
  return match?.value;
};

describe('ServiceMetrics', () => {
  it('counts commands by operation and outcome and observes duration and age in seconds', async () => {
    const metrics = new ServiceMetrics({ topics, processMetrics: false });
    metrics.commandHandled({ operation: 'CheckPortInEligibility', outcome: 'Success', durationMs: 4, ageMs: 1500 });
    metrics.commandHandled({ operation: 'CheckPortInEligibility', outcome: 'Success', durationMs: 6, ageMs: -20 });
    metrics.commandHandled({ operation: 'CheckPortInEligibility', outcome: 'BAD_REQUEST', durationMs: 1 });
    metrics.commandHandled({ outcome: 'DEAD_LETTER', durationMs: 1 });
    expect(await valueOf(metrics, 'wholesale_commands_total', { operation: 'CheckPortInEligibility', outcome: 'Success' })).toBe(2);
    expect(await valueOf(metrics, 'wholesale_commands_total', { operation: 'CheckPortInEligibility', outcome: 'BAD_REQUEST' })).toBe(1);
    expect(await valueOf(metrics, 'wholesale_commands_total', { operation: 'unknown', outcome: 'DEAD_LETTER' })).toBe(1);
    const text = await metrics.render();
    expect(text).toContain('wholesale_command_duration_seconds_sum{operation="CheckPortInEligibility"} 0.011');
    // A record stamped in the future (clock skew) counts as age 0, not negative.
    expect(text).toContain('wholesale_command_age_seconds_sum{operation="CheckPortInEligibility"} 1.5');
    expect(text).toContain('wholesale_command_age_seconds_count{operation="CheckPortInEligibility"} 2');
  });

  it('counts output transactions by outcome, both series present at 0 before the first', async () => {
    const metrics = new ServiceMetrics({ topics, processMetrics: false });
    const count = (outcome: string) => valueOf(metrics, 'wholesale_output_transaction_duration_seconds', { outcome });
    const text = await metrics.render();
    expect(text).toContain('wholesale_output_transaction_duration_seconds_count{outcome="committed"} 0');
    expect(text).toContain('wholesale_output_transaction_duration_seconds_count{outcome="aborted"} 0');
    metrics.transactionEnded('committed', 20);
    metrics.transactionEnded('committed', 30);
    metrics.transactionEnded('aborted', 1500);
    const after = await metrics.render();
    expect(after).toContain('wholesale_output_transaction_duration_seconds_count{outcome="committed"} 2');
    expect(after).toContain('wholesale_output_transaction_duration_seconds_sum{outcome="committed"} 0.05');
    expect(after).toContain('wholesale_output_transaction_duration_seconds_count{outcome="aborted"} 1');
    expect(await count('aborted')).toBeDefined();
  });

  it('counts dead letters by reason and events by topic; replies are neither', async () => {
    const metrics = new ServiceMetrics({ topics, processMetrics: false });
    metrics.messagesSent([
      { topic: topics.deadLetters, headers: { [DLQ_HEADER.reason]: Buffer.from('NOT_AVRO') } },
      { topic: topics.deadLetters, headers: { [DLQ_HEADER.reason]: 'NOT_AVRO' } },
      { topic: topics.portinEvents },
      { topic: topics.npRequests },
      { topic: topics.portinReplies },
      { topic: 'partner.private.replies' },
    ]);
    expect(await valueOf(metrics, 'wholesale_dead_letters_total', { reason: 'NOT_AVRO' })).toBe(2);
    expect(await valueOf(metrics, 'wholesale_events_published_total', { topic: topics.portinEvents })).toBe(1);
    expect(await valueOf(metrics, 'wholesale_events_published_total', { topic: topics.npRequests })).toBe(1);
    const events = await metrics.registry.getSingleMetric('wholesale_events_published_total')!.get();
    expect(events.values.map((v) => v.labels.topic).sort()).toEqual([topics.npRequests, topics.portinEvents].sort());
  });

  it('reads consumer lag at scrape time, and shows no lag series when Kafka does not answer', async () => {
    let answer: () => Promise<{ topic: string; partition: number; lag: number }[]> = async () => [
      { topic: 'cmds', partition: 0, lag: 3 },
      { topic: 'cmds', partition: 1, lag: 0 },
    ];
    const metrics = new ServiceMetrics({ topics, processMetrics: false, lag: () => answer(), assignedPartitions: () => 2, heldPartitions: () => 1 });
    let text = await metrics.render();
    expect(text).toContain('wholesale_consumer_lag{topic="cmds",partition="0"} 3');
    expect(text).toContain('wholesale_consumer_lag{topic="cmds",partition="1"} 0');
    expect(text).toContain('wholesale_consumer_assigned_partitions 2');
    expect(text).toContain('wholesale_consumer_held_partitions 1');
    answer = () => Promise.reject(new Error('no broker'));
    text = await metrics.render();
    expect(text).not.toContain('wholesale_consumer_lag{');
  });

  it('observes Redis calls by operation and result, and keeps two instances apart', async () => {
    const a = new ServiceMetrics({ topics, processMetrics: false });
    const b = new ServiceMetrics({ topics });
    a.redisCall('balancesUpdate', 2, false);
    a.redisCall('replyCache.get', 1, true);
    const text = await a.render();
    expect(text).toContain('wholesale_redis_call_duration_seconds_count{operation="balancesUpdate",result="ok"} 1');
    expect(text).toContain('wholesale_redis_call_duration_seconds_count{operation="replyCache.get",result="error"} 1');
    expect(await b.render()).not.toContain('operation="balancesUpdate"');
    expect(await b.render()).toContain('process_cpu_user_seconds_total');
    expect(a.contentType).toMatch(/^text\/plain/);
  });
});
