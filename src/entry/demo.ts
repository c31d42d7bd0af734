import { Command } from 'commander';
import pino from 'pino';
import { ConfigError, loadClientConfig } from '../config';
import { WholesaleClient } from '../client/wholesale-client';
import { parsePositiveInteger } from '../cli/operation-commands';
import { runDemoJourney } from '../demo/journey';

/** `npm run demo [-- --wait <seconds>] [--gpsi <number>]`: the scripted journey against a running service (npm run dev). */
async function main(): Promise<number> {
  const options = new Command('demo')
    .option('--wait <seconds>', 'how long to wait for the NP simulator to complete the port', parsePositiveInteger, 180)
    .option('--gpsi <gpsi>', 'the number to port in (default: a random one ending in 42, which the simulator confirms)')
    .option('--customer <id>', 'wholesaleCustomerId to act for (default: WHOLESALE_CUSTOMER_ID, else WC-DEMO)')
    .parse(process.argv)
    .opts<{ wait: number; gpsi?: string; customer?: string }>();
  let config;
  try {
    config = loadClientConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`configuration error: ${error.message}\n(start the dev mode with npm run dev and export the endpoints it prints)\n`);
    return 2;
  }
  const print = (line: string) => process.stdout.write(`${line}\n`);
  print(`Wholesale demo — Kafka ${config.kafka.brokers.join(',')}, registry ${config.schemaRegistryUrl}, customer ${options.customer ?? config.wholesaleCustomerId ?? 'WC-DEMO'}`);
  const wholesaleCustomerId = options.customer ?? config.wholesaleCustomerId ?? 'WC-DEMO';
  const client = await WholesaleClient.connect({ config, wholesaleCustomerId, log: pino({ level: config.logLevel }, pino.destination(2)) });
  try {
    await runDemoJourney({ client, print, waitMs: options.wait * 1000, gpsi: options.gpsi });
    return 0;
  } finally {
    await client.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`\ndemo failed: ${error?.message ?? error}\n`);
    process.exit(1);
  },
);
