import './require-supported-runtime';
import { runCli } from '../cli/program';
import { processIo } from '../cli/io';
import { loadTracingSettings } from '../config/tracing-settings';
import { startTracingIfExported } from '../observability/start-tracing';

/** `wholesale …` (bin/wholesale.js): runs one CLI command and exits with its code (see src/cli/exit-codes.ts). */
// A reader that goes away (`wholesale events tail | head`) ends the command quietly, as Unix tools do.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});
// With OTEL_* set, each command the CLI sends starts a trace (its span is exported before the exit).
const tracing = startTracingIfExported(loadTracingSettings(process.env, 'wholesale-cli'));
tracing
  .then(() => runCli(process.argv.slice(2), { io: processIo }))
  .then(
    async (code) => (await tracing).shutdown().finally(() => process.exit(code)),
    (error) => {
      process.stderr.write(`wholesale: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    },
  );
