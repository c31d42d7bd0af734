import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadStackConfig } from '../config';
import { kafkaLibs } from '../artifacts/distributions';
import { allocatePorts, LOOPBACK } from '../net/ports';
import { createServerFolder, LocalServer, type ServerControl, type ServerFolderOptions } from '../process/local-server';
import { StackStartError } from '../process/wait';
import { brokerProperties, randomClusterId, scramFormatArgs, type BrokerLayout, type ScramUser } from './broker-config';
import { renderProperties } from './properties';
import { kafkaLogging, type KafkaLogging } from '../versions';
import { waitForKafkaCluster, waitForKafkaNode } from './readiness';

const run = promisify(execFile);

export interface LocalKafkaOptions extends ServerFolderOptions {
  /** Adds a SASL_PLAINTEXT listener (SCRAM-SHA-256 and -512) with these users, created at format time. */
  readonly sasl?: { readonly users: readonly ScramUser[] };
  /**
   * With `sasl`: the KRaft StandardAuthorizer, nothing allowed without an ACL; these user names are super
   * users (as is ANONYMOUS, the PLAINTEXT listeners' principal: keep the PLAINTEXT address to the operator).
   */
  readonly authorizer?: { readonly superUsers: readonly string[] };
  /**
   * Adds an SSL listener presenting this certificate (PEM; it must name 127.0.0.1), with `clientCa` also an
   * MTLS listener requiring client certificates, and with `sasl` also a SASL_SSL listener.
   */
  readonly tls?: LocalKafkaTls;
  /**
   * Adds a listener that advertises another free port, where the caller runs a relay (a TCP proxy) to the
   * listener's: faults on the wire between clients and a broker (test/support/kafka-relay.ts).
   */
  readonly relayed?: boolean;
  /** Where Kafka's jars are cached; default from the stack configuration (STACK_CACHE_DIR). */
  readonly cacheDir?: string;
  /** Default from the stack configuration (STACK_KAFKA_VERSION). */
  readonly kafkaVersion?: string;
  readonly readyTimeoutMs?: number;
}

export interface LocalKafkaTls {
  /** PEM: the broker's certificate, then its CA's. */
  readonly certificateChain: string;
  /** PEM PKCS#8 key of that certificate, unencrypted. */
  readonly privateKey: string;
  /** PEM CA the MTLS listener's client certificates must chain to; without it, no MTLS listener. */
  readonly clientCa?: string;
}

export interface KafkaClusterOptions extends LocalKafkaOptions {
  /** Number of combined broker+controller nodes, all voters of one static quorum. Default 3. */
  readonly brokers?: number;
}

/** One Kafka node (broker and controller in one process). */
export interface LocalKafka extends ServerControl {
  readonly nodeId: number;
  readonly clusterId: string;
  /** The PLAINTEXT listener, `127.0.0.1:<port>`: no credentials; also used for admin and between brokers. */
  readonly brokers: string[];
  readonly port: number;
  readonly controllerPort: number;
  /** The SASL_PLAINTEXT listener (SCRAM-SHA-256/512), only with the `sasl` option. */
  readonly saslBrokers?: string[];
  readonly saslPort?: number;
  /** The SSL listener (server certificate only), the MTLS listener (client certificate required) and the SASL_SSL listener, with the `tls` option. */
  readonly tlsBrokers?: string[];
  readonly mutualTlsBrokers?: string[];
  readonly saslTlsBrokers?: string[];
  /** With the `relayed` option: the listener's own port, and the port it advertises (where the relay listens). */
  readonly relayed?: { readonly port: number; readonly advertisedPort: number };
}

export interface KafkaCluster {
  readonly clusterId: string;
  /** PLAINTEXT address of every node: give them all to clients. */
  readonly brokers: string[];
  /** SASL_PLAINTEXT address of every node, with the `sasl` option. */
  readonly saslBrokers?: string[];
  /** SSL, MTLS and SASL_SSL addresses of every node, with the `tls` option (see LocalKafka). */
  readonly tlsBrokers?: string[];
  readonly mutualTlsBrokers?: string[];
  readonly saslTlsBrokers?: string[];
  /** The nodes in node.id order (1..n), each with its own stop/kill/start. */
  readonly nodes: readonly LocalKafka[];
  node(nodeId: number): LocalKafka;
  /** Stops every node and removes their folders. */
  stop(): Promise<void>;
}

const KAFKA_JVM = ['-Xms256m', '-Xmx512m', '-XX:+UseG1GC', '-XX:MaxGCPauseMillis=20', '-XX:InitiatingHeapOccupancyPercent=35', '-Djava.awt.headless=true'];
// The format tool is a short-lived JVM: a small heap and the C1 compiler only start it faster.
const TOOL_JVM = ['-Xmx256m', '-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-Djava.awt.headless=true'];

/** Loggers quieted to WARN: state changes and requests are logged per partition and per request at INFO. */
const QUIET_LOGGERS = ['state.change.logger', 'kafka.request.logger', 'org.apache.kafka.clients'];
const PATTERN = '[%d] %p %m (%c)%n';

/** The broker's logging configuration in its flavour's own format, and the JVM flag that names the file. */
export function loggingConfiguration(flavour: KafkaLogging['flavour'], file: string): { text: string; jvmFlag: string } {
  if (flavour === 'log4j') {
    return {
      jvmFlag: `-Dlog4j.configuration=file:${file}`,
      text: renderProperties({
        'log4j.rootLogger': 'INFO, stdout',
        'log4j.appender.stdout': 'org.apache.log4j.ConsoleAppender',
        'log4j.appender.stdout.layout': 'org.apache.log4j.PatternLayout',
        'log4j.appender.stdout.layout.ConversionPattern': PATTERN,
        ...Object.fromEntries(QUIET_LOGGERS.map((name) => [`log4j.logger.${name}`, 'WARN'])),
      }),
    };
  }
  return {
    jvmFlag: `-Dlog4j2.configurationFile=${file}`,
    text: renderProperties({
      status: 'warn',
      'appender.stdout.type': 'Console',
      'appender.stdout.name': 'STDOUT',
      'appender.stdout.layout.type': 'PatternLayout',
      'appender.stdout.layout.pattern': PATTERN,
      'rootLogger.level': 'INFO',
      'rootLogger.appenderRef.stdout.ref': 'STDOUT',
      ...Object.fromEntries(
        QUIET_LOGGERS.flatMap((name, i) => [
          [`logger.quiet${i}.name`, name],
          [`logger.quiet${i}.level`, 'WARN'],
        ]),
      ),
    }),
  };
}

/**
 * One Kafka node in KRaft combined mode on free loopback ports, its log directory in a temporary folder.
 * stop()/kill()/start() keep the ports and the data.
 */
export async function startLocalKafka(options: LocalKafkaOptions = {}): Promise<LocalKafka> {
  const cluster = await startKafkaCluster({ ...options, brokers: 1 });
  return cluster.nodes[0];
}

/**
 * `brokers` Kafka nodes (node.id 1..n), each broker and controller, voters of one static quorum
 * (controller.quorum.voters), on distinct free ports, with separate log directories formatted with the same
 * cluster id. With three or more: default.replication.factor 3 and min.insync.replicas 2.
 */
export async function startKafkaCluster(options: KafkaClusterOptions = {}): Promise<KafkaCluster> {
  const count = options.brokers ?? 3;
  if (!Number.isInteger(count) || count < 1) throw new Error(`brokers must be a whole number from 1, got ${count}`);
  const version = options.kafkaVersion ?? loadStackConfig().kafkaVersion;
  const libs = await kafkaLibs(options.cacheDir ?? loadStackConfig().cacheDir, version);
  // Each node's ports in this order: PLAINTEXT, CONTROLLER, then the optional listeners that are wanted.
  const optional = {
    sasl: options.sasl !== undefined,
    tls: options.tls !== undefined,
    mutualTls: options.tls?.clientCa !== undefined,
    saslTls: options.tls !== undefined && options.sasl !== undefined,
    relayed: options.relayed === true,
    relay: options.relayed === true,
  };
  const wanted = (Object.keys(optional) as (keyof typeof optional)[]).filter((name) => optional[name]);
  const portsPerNode = 2 + wanted.length;
  const ports = await allocatePorts({ count: count * portsPerNode });
  const portOf = (i: number, name: keyof typeof optional): number | undefined => (optional[name] ? ports[i * portsPerNode + 2 + wanted.indexOf(name)] : undefined);
  const voters = Array.from({ length: count }, (_, i) => ({ nodeId: i + 1, host: LOOPBACK, controllerPort: ports[i * portsPerNode + 1] }));
  const clusterId = randomClusterId(randomBytes);
  // A restarted node is ready when every running peer lists it, not only itself: a client asking a peer
  // must find it too.
  const runningPeers = (nodeId: number): string[] => nodes.filter((n) => n.nodeId !== nodeId && n.running).flatMap((n) => n.brokers);
  const nodes: LocalKafka[] = voters.map((voter, i) =>
    createNode(
      {
        ...voter,
        port: ports[i * portsPerNode],
        saslPort: portOf(i, 'sasl'),
        tls: options.tls && { ...options.tls, port: portOf(i, 'tls')!, mutualPort: portOf(i, 'mutualTls'), saslPort: portOf(i, 'saslTls') },
        voters,
        superUsers: options.authorizer?.superUsers.map((username) => `User:${username}`),
        relayed: options.relayed ? { port: portOf(i, 'relayed')!, advertisedPort: portOf(i, 'relay')! } : undefined,
      },
      { clusterId, libs, logging: kafkaLogging(version).flavour, options, runningPeers: () => runningPeers(voter.nodeId) },
    ),
  );
  const stop = async (): Promise<void> => {
    await Promise.all(nodes.map((node) => node.dispose()));
  };
  const brokers = nodes.flatMap((node) => node.brokers);
  try {
    // Together: a node of a multi-voter quorum cannot become ready before a majority runs.
    const started = await Promise.allSettled(nodes.map((node) => node.start()));
    const failed = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) throw failed.reason;
    await waitForKafkaCluster(brokers, count, options.readyTimeoutMs ?? 90_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    clusterId,
    brokers,
    saslBrokers: options.sasl ? nodes.flatMap((node) => node.saslBrokers ?? []) : undefined,
    tlsBrokers: optional.tls ? nodes.flatMap((node) => node.tlsBrokers ?? []) : undefined,
    mutualTlsBrokers: optional.mutualTls ? nodes.flatMap((node) => node.mutualTlsBrokers ?? []) : undefined,
    saslTlsBrokers: optional.saslTls ? nodes.flatMap((node) => node.saslTlsBrokers ?? []) : undefined,
    nodes,
    node: (nodeId) => {
      const node = nodes.find((n) => n.nodeId === nodeId);
      if (!node) throw new Error(`no Kafka node ${nodeId}: nodes are 1..${count}`);
      return node;
    },
    stop,
  };
}

type NodeLayout = Omit<BrokerLayout, 'logDir'>;

const addresses = (port: number | undefined): string[] | undefined => (port === undefined ? undefined : [`${LOOPBACK}:${port}`]);

interface NodeContext {
  readonly clusterId: string;
  readonly libs: string;
  readonly logging: KafkaLogging['flavour'];
  readonly options: LocalKafkaOptions;
  readonly runningPeers: () => string[];
}

function createNode(layout: NodeLayout, { clusterId, libs, logging, options, runningPeers }: NodeContext): LocalKafka {
  const dir = createServerFolder(`kafka-${layout.nodeId}-${layout.port}`, options);
  const logDir = join(dir, 'data');
  const propertiesFile = join(dir, 'server.properties');
  const logConfig = loggingConfiguration(logging, join(dir, `${logging}.properties`));
  const logFile = join(dir, 'kafka.log');
  writeFileSync(propertiesFile, renderProperties(brokerProperties({ ...layout, logDir })));
  writeFileSync(join(dir, `${logging}.properties`), logConfig.text);
  const classPath = join(libs, '*');
  const logFlag = logConfig.jvmFlag;
  const address = `${LOOPBACK}:${layout.port}`;

  const format = async (): Promise<void> => {
    if (existsSync(join(logDir, 'meta.properties'))) return; // formatted by an earlier start
    mkdirSync(logDir, { recursive: true });
    const args = [...TOOL_JVM, logFlag, '-cp', classPath, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', propertiesFile, '--ignore-formatted'];
    const scram = options.sasl ? scramFormatArgs(options.sasl.users) : [];
    try {
      const { stdout, stderr } = await run('java', [...args, ...scram], { cwd: dir, timeout: 120_000 });
      appendFileSync(logFile, `=== storage format\n${stdout}${stderr}`);
    } catch (error) {
      const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
      appendFileSync(logFile, `=== storage format failed\n${stdout}${stderr}`);
      throw new StackStartError(`kafka-${layout.nodeId}: formatting ${logDir} failed: ${(error as Error).message}`, logFile, `${stdout}${stderr}`.trim());
    }
  };

  const server = new LocalServer({
    spec: {
      name: `kafka-${layout.nodeId}`,
      command: 'java',
      args: [...KAFKA_JVM, logFlag, `-Dkafka.logs.dir=${join(dir, 'logs')}`, '-cp', classPath, 'kafka.Kafka', propertiesFile],
      cwd: dir,
      logFile,
      stopTimeoutMs: 20_000,
    },
    dir,
    keepFiles: options.keepFiles,
    prepare: format,
    waitReady: (process) =>
      waitForKafkaNode(process, {
        addresses: [address, ...runningPeers()],
        nodeId: layout.nodeId,
        timeoutMs: options.readyTimeoutMs ?? 90_000,
        extraPorts: [layout.saslPort, layout.tls?.port, layout.tls?.mutualPort, layout.tls?.saslPort, layout.relayed?.port].filter((port) => port !== undefined),
      }),
  });
  return Object.assign(server, {
    nodeId: layout.nodeId,
    clusterId,
    brokers: [address],
    port: layout.port,
    controllerPort: layout.controllerPort,
    saslBrokers: layout.saslPort === undefined ? undefined : [`${LOOPBACK}:${layout.saslPort}`],
    saslPort: layout.saslPort,
    tlsBrokers: addresses(layout.tls?.port),
    mutualTlsBrokers: addresses(layout.tls?.mutualPort),
    saslTlsBrokers: addresses(layout.tls?.saslPort),
    relayed: layout.relayed,
  });
}
