/*
 * Test-only preload (node --require) for a worker child process: SIGKILLs the process the moment it is
 * about to run one Redis script on a given key — a crash between two Redis steps at a precise point,
 * with no cleanup, no finally block and nothing sent after it. Production code is not touched: ioredis'
 * sendCommand is wrapped in this process only.
 *   CRASH_BEFORE_SCRIPT  script name (src/adapters/redis/scripts/<name>-<keys>.lua), called as FCALL <name>_<version>
 *   CRASH_MATCH          a substring one of the command's arguments must hold (a number, a transaction id; '' any)
 *   CRASH_SIGNAL         the signal (default SIGKILL; SIGSTOP freezes the worker with that record in flight)
 *   CRASH_AFTER          the how-manieth matching call it strikes at (default 1)
 */
const { readdirSync } = require('node:fs');
const { join } = require('node:path');

const name = process.env.CRASH_BEFORE_SCRIPT;
const match = process.env.CRASH_MATCH;
const signal = process.env.CRASH_SIGNAL ?? 'SIGKILL';
let left = Number(process.env.CRASH_AFTER ?? 1);
if (name && match !== undefined) {
  const dir = join(__dirname, '..', '..', '..', 'src', 'adapters', 'redis', 'scripts');
  if (!readdirSync(dir).some((f) => f.startsWith(`${name}-`) && f.endsWith('.lua'))) throw new Error(`crash hook: no script ${name} in ${dir}`);
  // Each step is a function of the library `npm run generate` builds, named <script>_<library version>.
  const functionName = new RegExp(`^${name}_[0-9a-f]+$`);
  const Redis = require('ioredis');
  const RedisClass = Redis.default ?? Redis;
  const sendCommand = RedisClass.prototype.sendCommand;
  RedisClass.prototype.sendCommand = function (command, stream) {
    if (command.name === 'fcall' && functionName.test(String(command.args[0])) && command.args.some((arg) => String(arg).includes(match)) && --left === 0) {
      process.stdout.write(`${JSON.stringify({ msg: `crash hook: ${signal} before a Redis script`, script: name, match })}\n`);
      process.kill(process.pid, signal);
    }
    return sendCommand.call(this, command, stream);
  };
}
