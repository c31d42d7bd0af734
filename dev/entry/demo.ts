import { Command } from 'commander';
import pino from 'pino';
import { loadClientConfig } from '../../src/client/config';
import { ConfigError } from '../../src/config/env';
import { WholesaleClient } from '../../src/client/wholesale-client';
import { parsePositiveInteger } from '../../src/cli/operation-commands';
import { runHttpDemo } from '../demo/http-journey';
import { runDemoJourney } from '../demo/journey';
import { createDevSigner } from '../keys/dev-signer';

/** Example Brand One of the sample hierarchy (config/customers.json). */
const DEMO_CUSTOMER = '100000108465';

/** `npm run demo [-- --wait <seconds>] [--gpsi <number>]`: the scripted journey against a running service (npm run dev). */
async function main(): Promise<number> {
  const options = new Command('demo')
    .option('--wait <seconds>', 'how long to wait for the NP simulator to complete the port', parsePositiveInteger, 180)
    .option('--gpsi <gpsi>', 'the number to port in (default: a random one ending in 42, which the simulator confirms)')
    .option('--gateway <url>', 'the HTTP gateway npm run dev starts, for the HTTP part (skipped when none answers there)', 'http://127.0.0.1:8090')
    .option('--customer <id>', `wholesaleCustomerId to act for (default: WHOLESALE_CUSTOMER_ID, else ${DEMO_CUSTOMER}, a brand of config/customers.json)`)
    .parse(process.argv)
    .opts<{ wait: number; gpsi?: string; customer?: string; gateway: string }>();
  let config;
  try {
    config = loadClientConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`configuration error: ${error.message}\n(start the dev mode with npm run dev and export the endpoints it prints)\n`);
    return 2;
  }
  const print = (line: string) => process.stdout.write(`${line}\n`);
  const wholesaleCustomerId = options.customer ?? config.wholesaleCustomerId ?? DEMO_CUSTOMER;
  print(`Wholesale demo — Kafka ${config.kafka.brokers.join(',')}, registry ${config.schemaRegistryUrl}, customer ${wholesaleCustomerId}`);
  // The dev mode verifies tokens signed with the dev key: sign our own unless a token was given.
  const tokenProvider = config.token ? undefined : (await createDevSigner()).tokenProvider(wholesaleCustomerId);
  const client = await WholesaleClient.connect({ config, wholesaleCustomerId, tokenProvider, log: pino({ level: config.logLevel }, pino.destination(2)) });
  try {
    const gpsi = await runDemoJourney({ client, print, waitMs: options.wait * 1000, gpsi: options.gpsi });
    const gatewayUp = await fetch(new URL('/healthz', options.gateway)).then(
      (r) => r.ok,
      () => false,
    );
    if (!gatewayUp) {
      print(`\n(HTTP part skipped: no gateway answers at ${options.gateway}; npm run dev starts one, or npm run gateway)`);
      return 0;
    }
    const token = config.token ?? (await tokenProvider!());
    await runHttpDemo({ baseUrl: options.gateway, token, wholesaleCustomerId, gpsi, print });
    return 0;
  } finally {
    await client.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`\ndemo failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
