import type { Logger } from '../contract/log';

/**
 * The client library's logger when the caller gives none: JSON lines on stderr in pino's shape (level
 * number, time, name, msg, the fields), at LOG_LEVEL — so the library needs no logging package, and a
 * caller who wants pino (or anything with its methods) passes one as `log`.
 */
const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;
type Level = keyof typeof LEVELS;

/** Errors print as pino's serializer prints them (type, message, stack); other values as they are. */
const plain = (value: unknown): unknown => (value instanceof Error ? { type: value.name, message: value.message, stack: value.stack } : value);

export function createClientLogger(options: { level: string; name: string; write?: (line: string) => void }): Logger {
  const threshold = options.level === 'silent' ? Infinity : (LEVELS[options.level as Level] ?? LEVELS.warn);
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const make = (bindings: Record<string, unknown>): Logger => {
    const at = (level: Level) => (fieldsOrMessage: object | string, message?: string) => {
      if (LEVELS[level] < threshold) return;
      const fields = typeof fieldsOrMessage === 'string' ? {} : Object.fromEntries(Object.entries(fieldsOrMessage).map(([key, value]) => [key, plain(value)]));
      const msg = typeof fieldsOrMessage === 'string' ? fieldsOrMessage : message;
      write(`${JSON.stringify({ level: LEVELS[level], time: Date.now(), name: options.name, ...bindings, ...fields, msg })}\n`);
    };
    return {
      trace: at('trace'),
      debug: at('debug'),
      info: at('info'),
      warn: at('warn'),
      error: at('error'),
      fatal: at('fatal'),
      child: (more) => make({ ...bindings, ...more }),
    };
  };
  return make({});
}
