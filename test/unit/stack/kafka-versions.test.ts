import { loadStackConfig } from '../../../dev/stack/config';
import { ConfigError } from '../../../src/config/env';
import { loggingConfiguration } from '../../../dev/stack/kafka/local-kafka';
import { DEFAULT_KAFKA_VERSION, KAFKA_3_VERSION, images, kafkaLogging } from '../../../dev/stack/versions';

describe('the Kafka version the stack runs', () => {
  it('is the newest 4.x unless STACK_KAFKA_VERSION names another release', () => {
    expect(DEFAULT_KAFKA_VERSION).toMatch(/^4\./);
    expect(loadStackConfig({}).kafkaVersion).toBe(DEFAULT_KAFKA_VERSION);
    expect(loadStackConfig({ STACK_KAFKA_VERSION: KAFKA_3_VERSION }).kafkaVersion).toBe('3.9.1');
    expect(() => loadStackConfig({ STACK_KAFKA_VERSION: 'latest' })).toThrow(ConfigError);
    expect(images('4.4.0').kafka).toBe('apache/kafka:4.4.0');
  });

  it('logs through log4j2 on 4.x and log4j 1 (reload4j) on 3.x', () => {
    expect(kafkaLogging('4.4.0')).toEqual({ flavour: 'log4j2', binding: expect.objectContaining({ artifactId: 'log4j-slf4j-impl' }) });
    expect(kafkaLogging('3.9.1')).toEqual({ flavour: 'log4j', binding: expect.objectContaining({ artifactId: 'slf4j-reload4j' }) });
  });
});

describe('loggingConfiguration', () => {
  it('writes a log4j2 properties file named by -Dlog4j2.configurationFile, the chatty loggers at WARN', () => {
    const { text, jvmFlag } = loggingConfiguration('log4j2', '/x/log4j2.properties');
    expect(jvmFlag).toBe('-Dlog4j2.configurationFile=/x/log4j2.properties');
    expect(text).toContain('rootLogger.appenderRef.stdout.ref=STDOUT');
    expect(text).toContain('logger.quiet0.name=state.change.logger\nlogger.quiet0.level=WARN');
    expect(text).not.toContain('log4j.rootLogger');
  });

  it('keeps the log4j 1 format for 3.x', () => {
    const { text, jvmFlag } = loggingConfiguration('log4j', '/x/log4j.properties');
    expect(jvmFlag).toBe('-Dlog4j.configuration=file:/x/log4j.properties');
    expect(text).toContain('log4j.rootLogger=INFO, stdout');
    expect(text).toContain('log4j.logger.kafka.request.logger=WARN');
  });
});
