import { randomUUID } from 'node:crypto';
import { Command, CommanderError, Option } from 'commander';
import pino, { type Logger } from 'pino';
import { loadAdminConfig, loadDlqAdminConfig, loadWebhookAdminConfig, type AdminConfig } from './config';
import { addWebhookCommands } from './webhook-commands';
import { loadClientConfig, type ClientConfig } from '../client/config';
import { ConfigError } from '../config/env';
import { InvalidCommandError, RequestTimeoutError, ServiceReplyError } from '../client/errors';
import type { SubscribeEventsOptions, EventSubscription } from '../client/events';
import { WholesaleClient, type CallOptions } from '../client/wholesale-client';
import type { OperationName } from '../client/operations';
import { EXIT, EXIT_CODES_HELP, type ExitCode } from './exit-codes';
import { commandInput, UsageError } from './input';
import type { CliIo } from './io';
import { OPERATION_COMMANDS, optionKey, parsePositiveInteger, type OperationCommand } from './operation-commands';
import { formatError, formatEvent, formatReply } from './output';
import { addAdminCommands } from './admin-commands';
import { codecFor, decodeAvro, formatOpened, openRecord, parseDeadLetterFile, readDeadLetters } from './dead-letters';
import { partnerOfRequester, requesterTopics } from '../client/partner';

/**
 * `wholesale`: the service's operations from a terminal or a script. Connection settings come from the
 * same environment variables as the service (flags override them); the body of a command from --file,
 * --data and field flags. Exit codes: see exit-codes.ts.
 */
export interface CliClient {
  call(operation: OperationName, input: Record<string, unknown>, options?: CallOptions): Promise<object>;
  subscribeEvents(options: SubscribeEventsOptions): Pick<EventSubscription, 'ready' | 'close'>;
  close(): Promise<void>;
}

export interface CliDeps {
  io: CliIo;
  /** Settings from the environment with the flags' overrides (variable → value). */
  loadConfig?: (overrides: Record<string, string>) => ClientConfig;
  connect?: (config: ClientConfig, log: Logger) => Promise<CliClient>;
  /** Settings of `wholesale admin …` with the flags' overrides (default: loadAdminConfig over the environment). */
  loadAdminConfig?: (overrides: Record<string, string>) => AdminConfig;
}

interface GlobalOptions {
  brokers?: string;
  registry?: string;
  timeout?: number;
  customer?: string;
  partner?: string;
  token?: string;
  correlationId?: string;
  json?: boolean;
}

const ENVIRONMENT_HELP = `Environment (the service's own variables; flags win):
  KAFKA_BROKERS         host:port,… (--brokers)
  SCHEMA_REGISTRY_URL   Confluent-compatible registry URL (--registry)
  CLIENT_TIMEOUT_MS     reply timeout, default 5000 (--timeout)
  WHOLESALE_CUSTOMER_ID wholesaleCustomerId header (--customer)
  WHOLESALE_PARTNER_ID  the partner whose reply and event topics are read (--partner; default: the partner of
                        the customer acted for in CUSTOMERS_FILE, config/customers.json)
  WHOLESALE_TOKEN       bearer token for Authorization (--token); for the dev stack, npm run dev:env prints one
  KAFKA_TLS, KAFKA_TLS_CA_FILE, KAFKA_TLS_CERT_FILE, KAFKA_TLS_KEY_FILE, KAFKA_SASL_MECHANISM,
  KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD   Kafka transport security (docs/security.md)
  TOPIC_PORTIN_COMMANDS, TOPIC_PORTIN_REPLIES, TOPIC_BALANCE_COMMANDS, TOPIC_BALANCE_REPLIES,
  TOPIC_PORTIN_EVENTS, TOPIC_BALANCE_EVENTS   topic names, if not the defaults
  LOG_LEVEL             client log level on stderr (default warn)`;

function configOverrides(globals: GlobalOptions): Record<string, string> {
  const overrides: Record<string, string | undefined> = {
    KAFKA_BROKERS: globals.brokers,
    SCHEMA_REGISTRY_URL: globals.registry,
    CLIENT_TIMEOUT_MS: globals.timeout?.toString(),
    WHOLESALE_CUSTOMER_ID: globals.customer,
    WHOLESALE_PARTNER_ID: globals.partner,
    WHOLESALE_TOKEN: globals.token,
  };
  return Object.fromEntries(Object.entries(overrides).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

const defaultConnect = (config: ClientConfig, log: Logger): Promise<CliClient> => WholesaleClient.connect({ config, log });
const cliLogger = (config: ClientConfig): Logger => pino({ level: config.logLevel, name: 'wholesale-cli' }, pino.destination(2));

/** Prints what went wrong and says which exit code it means. */
function reportFailure(io: CliIo, error: unknown, json: boolean): ExitCode {
  if (error instanceof ServiceReplyError) {
    io.stderr(formatError({ code: error.code, message: error.serviceMessage, problems: error.problems, correlationId: error.correlationId }, json));
    return EXIT.SERVICE_ERROR;
  }
  if (error instanceof RequestTimeoutError) {
    io.stderr(formatError({ code: 'TIMEOUT', message: `no reply within ${error.timeoutMs} ms`, correlationId: error.correlationId }, json));
    return EXIT.TIMEOUT;
  }
  if (error instanceof InvalidCommandError) {
    io.stderr(formatError({ code: 'INVALID_COMMAND', message: 'the command does not match its schema (nothing was sent)', problems: error.problems }, json));
    return EXIT.USAGE;
  }
  if (error instanceof UsageError || error instanceof ConfigError) {
    io.stderr(formatError({ code: 'USAGE', message: error.message }, json));
    return EXIT.USAGE;
  }
  io.stderr(formatError({ code: 'FAILURE', message: (error as Error)?.message ?? String(error) }, json));
  return EXIT.FAILURE;
}

interface DecryptOptions {
  partition?: number;
  offset?: string;
  count: number;
  file?: string;
}

const parseNonNegativeInteger = (raw: string): number => (raw === '0' ? 0 : parsePositiveInteger(raw));

async function decryptDeadLetters(io: CliIo, options: DecryptOptions, overrides: Record<string, string>, json: boolean): Promise<ExitCode> {
  const config = loadDlqAdminConfig(overrides);
  const keyring = new Map(config.keys.map((k) => [k.id, Buffer.from(k.key, 'base64')]));
  if (keyring.size === 0) throw new UsageError('no key: set DLQ_ENCRYPTION_KEY (and DLQ_ENCRYPTION_KEY_ID) or DLQ_DECRYPTION_KEYS');
  const records = options.file
    ? parseDeadLetterFile(options.file, await io.readFile(options.file))
    : await readDeadLetters(config, { partition: options.partition, offset: options.offset, count: options.count }, pino({ level: 'warn', name: 'wholesale-cli' }, pino.destination(2)));
  const codec = codecFor(config);
  let failed = 0;
  for (const record of records) {
    try {
      const opened = openRecord(record, keyring);
      io.stdout(formatOpened(opened, await decodeAvro(codec, opened.original?.value), json));
    } catch (error) {
      failed++;
      io.stderr(formatError({ code: 'NOT_OPENED', message: `${record.at}: ${(error as Error).message}` }, json));
    }
  }
  if (records.length === 0) io.stderr('no dead letters in that range');
  return failed > 0 ? EXIT.FAILURE : EXIT.SUCCESS;
}

export async function runCli(argv: readonly string[], deps: CliDeps): Promise<ExitCode> {
  const { io } = deps;
  const loadConfig = deps.loadConfig ?? ((overrides) => loadClientConfig(overrides));
  const connect = deps.connect ?? defaultConnect;
  let exitCode: ExitCode = EXIT.SUCCESS;

  async function withClient(globals: GlobalOptions, work: (client: CliClient, config: ClientConfig) => Promise<void>): Promise<void> {
    const config = loadConfig(configOverrides(globals));
    const client = await connect(config, cliLogger(config));
    try {
      await work(client, config);
    } finally {
      await client.close();
    }
  }

  const program = new Command('wholesale')
    .description('Requester for the wholesale port-in and balance service over Kafka: one sub-command per operation, and the events.')
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout(text.trimEnd()), writeErr: (text) => io.stderr(text.trimEnd()) })
    .showHelpAfterError('(add --help for usage)')
    .configureHelp({ showGlobalOptions: true })
    .option('--brokers <list>', 'Kafka brokers, host:port,… (env KAFKA_BROKERS)')
    .option('--registry <url>', 'schema registry URL (env SCHEMA_REGISTRY_URL)')
    .option('--timeout <ms>', 'reply timeout in ms (env CLIENT_TIMEOUT_MS; default 5000)', parsePositiveInteger)
    .option('--customer <id>', 'wholesaleCustomerId header: act for this customer node (env WHOLESALE_CUSTOMER_ID)')
    .option('--partner <id>', 'the partner acted for: its own reply and event topics are read (env WHOLESALE_PARTNER_ID; default: the partner of --customer)')
    .option('--token <jwt>', 'bearer token sent as Authorization (env WHOLESALE_TOKEN, which keeps it out of the process list)')
    .option('--correlation-id <id>', 'X-Correlation-Id of the command (default: a new UUID)')
    .option('--json', 'print replies, errors and events as one line of JSON each')
    .addHelpText('after', `\n${ENVIRONMENT_HELP}\n\n${EXIT_CODES_HELP}`);

  const groups = {
    portin: program.command('portin').description('port-in: eligibility, create, update, cancel, query'),
    balance: program.command('balance').description('balances: add/swap/cancel buckets, query, update, history'),
  };

  const addOperation = (spec: OperationCommand): void => {
    const command = groups[spec.group]
      .command(spec.name)
      .description(spec.summary)
      .option('-f, --file <path>', 'the command as a JSON object ("-" reads standard input); --data and field flags win over it')
      .option('-d, --data <json>', 'the command as inline JSON');
    for (const field of spec.fields) command.option(field.flags, field.description, field.parse as never);
    command.addHelpText('after', `\nExample:\n  ${spec.example}`);
    command.action(async (options: Record<string, string | undefined>, self: Command) => {
      const globals = self.optsWithGlobals<GlobalOptions>();
      const fields = Object.fromEntries(spec.fields.map((f) => [f.field, options[optionKey(f.flags)]]));
      const input = await commandInput(io, { file: options.file, data: options.data }, fields);
      await withClient(globals, async (client) => {
        const correlationId = globals.correlationId ?? randomUUID();
        const reply = await client.call(spec.operation, input, { correlationId });
        io.stdout(formatReply(reply, { json: Boolean(globals.json), operation: spec.operation, correlationId }));
      });
    });
  };
  OPERATION_COMMANDS.forEach(addOperation);
  const admin = addAdminCommands(program, {
    io,
    loadAdminConfig: deps.loadAdminConfig ?? ((overrides) => loadAdminConfig(overrides)),
    overrides: (command) => configOverrides(command.optsWithGlobals<GlobalOptions>()),
  });

  program
    .command('events')
    .description('the service events: PortInActivationEvent and the billing events')
    .command('tail')
    .description('print events as they arrive, until Ctrl-C')
    .option('--from-beginning', 'start from the oldest event kept (for a group without committed offsets)')
    .option('--group <id>', 'consumer group (default: a new one, so every tail sees every event)')
    .addOption(new Option('--topic <topic...>', 'portin, balance, or a topic name (default: both event topics)'))
    .option('--gpsi <gpsi>', 'only events of this number (the record key)')
    .option('--max <n>', 'stop after n events', parsePositiveInteger)
    .addHelpText('after', '\nExample:\n  wholesale events tail --from-beginning --gpsi 19459986891')
    .action(async (options: { fromBeginning?: boolean; group?: string; topic?: string[]; gpsi?: string; max?: number }, self: Command) => {
      const globals = self.optsWithGlobals<GlobalOptions>();
      await withClient(globals, async (client, config) => {
        const { events } = requesterTopics(config, partnerOfRequester(config));
        const aliases: Record<string, string> = { portin: events.portin, balance: events.balance };
        const topics = (options.topic ?? ['portin', 'balance']).map((t) => aliases[t] ?? t);
        let printed = 0;
        let stopInterrupt: () => void = () => undefined;
        const finished = new Promise<void>((resolve) => {
          stopInterrupt = io.onInterrupt(resolve);
          const subscription = client.subscribeEvents({
            groupId: options.group,
            fromBeginning: Boolean(options.fromBeginning),
            topics,
            onEvent: (event) => {
              if (options.gpsi !== undefined && event.key !== options.gpsi) return;
              io.stdout(formatEvent(event, Boolean(globals.json)));
              if (options.max !== undefined && ++printed >= options.max) resolve();
            },
          });
          subscription.ready.then(
            () => io.stderr(`listening on ${topics.join(', ')} (Ctrl-C to stop)`),
            (error: unknown) => {
              exitCode = reportFailure(io, error, Boolean(globals.json));
              resolve();
            },
          );
        });
        await finished;
        stopInterrupt();
      });
    });

  admin
    .command('dlq')
    .description('the dead-letter topic')
    .command('decrypt')
    .description('open sealed dead letters with the DLQ keys and print the original records (key, headers, value)')
    .option('--partition <n>', 'only this DLQ partition (default: all)', parseNonNegativeInteger)
    .option('--offset <n>', 'the first offset to read (default: the oldest kept)', (raw: string) => String(parseNonNegativeInteger(raw)))
    .option('--count <n>', 'records per partition', parsePositiveInteger, 10)
    .option('-f, --file <path>', 'read dead letters from a file instead, one JSON object per line: {"key", "value" (base64), "headers"}')
    .addHelpText(
      'after',
      `\nKeys: DLQ_ENCRYPTION_KEY (+ DLQ_ENCRYPTION_KEY_ID) and older ones in DLQ_DECRYPTION_KEYS=id:base64,…\nExample:\n  wholesale admin dlq decrypt --partition 0 --offset 120 --count 5 --json`,
    )
    .action(async (options: DecryptOptions, self: Command) => {
      const globals = self.optsWithGlobals<GlobalOptions>();
      exitCode = await decryptDeadLetters(io, options, configOverrides(globals), Boolean(globals.json));
    });

  addWebhookCommands(admin, { io, loadConfig: () => loadWebhookAdminConfig(), json: (command) => Boolean(command.optsWithGlobals<GlobalOptions>().json) });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help asked for (0); any other commander error already printed its message: a usage error.
      return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' ? EXIT.SUCCESS : EXIT.USAGE;
    }
    return reportFailure(io, error, argv.includes('--json'));
  }
}
