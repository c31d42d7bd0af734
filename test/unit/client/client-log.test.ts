import { createClientLogger } from '../../../src/client/log';

/** The client library's own logger: pino-shaped JSON lines at the configured level, no logging package. */
describe('createClientLogger', () => {
  const capture = (level: string) => {
    const lines: Record<string, unknown>[] = [];
    const log = createClientLogger({ level, name: 'wholesale-client', write: (line) => lines.push(JSON.parse(line)) });
    return { log, lines };
  };

  it("writes lines at or above its level, in pino's shape, and drops the others", () => {
    const { log, lines } = capture('warn');
    log.info({ topic: 't' }, 'not written');
    log.debug('not written either');
    log.warn({ topic: 't' }, 'written');
    log.error('also written');
    expect(lines).toEqual([
      { level: 40, time: expect.any(Number), name: 'wholesale-client', topic: 't', msg: 'written' },
      { level: 50, time: expect.any(Number), name: 'wholesale-client', msg: 'also written' },
    ]);
  });

  it("prints an error field as pino's serializer does and keeps a child's bindings", () => {
    const { log, lines } = capture('debug');
    log.child({ component: 'kafkajs' }).error({ err: new TypeError('broken') }, 'failed');
    expect(lines[0]).toMatchObject({ level: 50, component: 'kafkajs', err: { type: 'TypeError', message: 'broken', stack: expect.stringContaining('broken') }, msg: 'failed' });
  });

  it('writes nothing when silent', () => {
    const { log, lines } = capture('silent');
    log.fatal('nothing');
    expect(lines).toEqual([]);
  });
});
