/*
 * Test-only preload (node --require) for a worker child process: SIGKILLs the process the moment it is
 * about to run one Redis script on a given key — a crash between two Redis steps at a precise point,
 * with no cleanup, no finally block and nothing sent after it. Production code is not touched: ioredis'
 * sendCommand is wrapped in this process only.
 *   CRASH_BEFORE_SCRIPT  script name (src/adapters/redis/scripts/<name>-<keys>.lua)
 *   CRASH_MATCH          a substring one of the command's arguments must hold (a number, a transaction id)
 */
const { createHash } = require('node:crypto');
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

const name = process.env.CRASH_BEFORE_SCRIPT;
const match = process.env.CRASH_MATCH;
if (name && match) {
  const dir = join(__dirname, '..', '..', '..', 'src', 'adapters', 'redis', 'scripts');
  const file = readdirSync(dir).find((f) => f.startsWith(`${name}-`) && f.endsWith('.lua'));
  if (!file) throw new Error(`crash hook: no script ${name} in ${dir}`);
  // the source as `npm run generate` compiles it (its @include lines inlined), so the SHA ioredis sends
  const lua = readFileSync(join(dir, file), 'utf8').replace(/^--\s*@include\s+([a-zA-Z0-9_-]+)\s*$/gm, (_, lib) => readFileSync(join(dir, 'lib', `${lib}.lua`), 'utf8'));
  const sha = createHash('sha1').update(lua).digest('hex');
  const Redis = require('ioredis');
  const RedisClass = Redis.default ?? Redis;
  const sendCommand = RedisClass.prototype.sendCommand;
  RedisClass.prototype.sendCommand = function (command, stream) {
    const script = command.name === 'evalsha' ? command.args[0] : command.name === 'eval' ? createHash('sha1').update(String(command.args[0])).digest('hex') : undefined;
    if (script === sha && command.args.some((arg) => String(arg).includes(match))) {
      process.stdout.write(`${JSON.stringify({ msg: 'crash hook: SIGKILL before a Redis script', script: name, match })}\n`);
      process.kill(process.pid, 'SIGKILL');
    }
    return sendCommand.call(this, command, stream);
  };
}
