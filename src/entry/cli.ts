import { runCli } from '../cli/program';
import { processIo } from '../cli/io';

/** `wholesale …` (bin/wholesale.js): runs one CLI command and exits with its code (see src/cli/exit-codes.ts). */
// A reader that goes away (`wholesale events tail | head`) ends the command quietly, as Unix tools do.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});
runCli(process.argv.slice(2), { io: processIo }).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`wholesale: ${error?.stack ?? error}\n`);
    process.exit(1);
  },
);
