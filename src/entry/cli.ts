import { runCli } from '../cli/program';
import { processIo } from '../cli/io';

/** `wholesale …` (bin/wholesale.js): runs one CLI command and exits with its code (see src/cli/exit-codes.ts). */
runCli(process.argv.slice(2), { io: processIo }).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`wholesale: ${error?.stack ?? error}\n`);
    process.exit(1);
  },
);
