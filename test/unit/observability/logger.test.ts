import pino from 'pino';
import { createLogger, unredactedLogger } from '../../../src/observability/logger';

describe('loggers', () => {
  const capture = () => {
    const lines: Record<string, unknown>[] = [];
    return { lines, destination: { write: (line: string) => void lines.push(JSON.parse(line)) } };
  };

  it('the service logger redacts secrets; its unredacted sibling writes the same fields to the same place at the same level', () => {
    const { lines, destination } = capture();
    const log = createLogger({ level: 'info', name: 'svc', destination });
    log.info({ headers: { Authorization: 'Bearer x' }, correlationId: 'c1' }, 'redacted');
    const lines2 = unredactedLogger(log);
    lines2.info({ correlationId: 'c1', operation: 'QueryBalances' }, 'command handled');
    lines2.debug({ correlationId: 'c2' }, 'below the level');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ service: 'svc', name: 'svc', headers: { Authorization: '[redacted]' } });
    expect(lines[1]).toMatchObject({ service: 'svc', name: 'svc', level: 30, correlationId: 'c1', operation: 'QueryBalances', msg: 'command handled' });
    expect(typeof lines[1].time).toBe('string');
  });

  it('a logger made elsewhere (tests) is its own unredacted logger', () => {
    const other = pino({ level: 'silent' });
    expect(unredactedLogger(other)).toBe(other);
  });
});
