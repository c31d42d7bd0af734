import type { Properties } from './properties';

/** Where one combined broker+controller node listens, and the quorum it belongs to. */
export interface BrokerLayout {
  readonly nodeId: number;
  readonly host: string;
  /** PLAINTEXT listener: clients without credentials, inter-broker traffic, the stack's own admin checks. */
  readonly port: number;
  readonly controllerPort: number;
  /** SASL_PLAINTEXT listener (SCRAM-SHA-256 and SCRAM-SHA-512), when SASL is wanted. */
  readonly saslPort?: number;
  /** Every voter of the static KRaft quorum, this node included. */
  readonly voters: readonly { nodeId: number; host: string; controllerPort: number }[];
  readonly logDir: string;
  /**
   * Turns on the KRaft StandardAuthorizer (needs the SASL listener): nothing is allowed without an ACL,
   * except for these principals (e.g. `User:wholesale-svc`). `User:ANONYMOUS` is always added: it is the
   * principal of the PLAINTEXT listeners that carry inter-broker and controller traffic.
   */
  readonly superUsers?: readonly string[];
  /** TLS listeners, when TLS is wanted (see BrokerTls). */
  readonly tls?: BrokerTls;
  /**
   * A PLAINTEXT listener named RELAYED on `port` that advertises `advertisedPort`, where a test puts a relay (a
   * TCP proxy) in front of it: clients that bootstrap through the relay keep talking to the broker through it.
   */
  readonly relayed?: { readonly port: number; readonly advertisedPort: number };
}

/**
 * The broker's TLS listeners and its certificate, as PEM text written into server.properties (Kafka's PEM
 * key store: no JKS files, no store passwords). The SSL listener authenticates the broker only; MTLS (an
 * SSL listener of its own name) also requires a client certificate; SASL_SSL is SCRAM over TLS.
 */
export interface BrokerTls {
  /** SSL listener: the client checks the broker's certificate, the broker asks for none. */
  readonly port: number;
  /** Listener MTLS (protocol SSL) requiring a client certificate signed by `clientCa`. */
  readonly mutualPort?: number;
  /** SASL_SSL listener (SCRAM-SHA-256/512, the users of the SASL listener); needs `saslPort`. */
  readonly saslPort?: number;
  /** PEM: the broker's certificate, then the CA certificates up to the root. */
  readonly certificateChain: string;
  /** PEM PKCS#8 private key of that certificate, unencrypted. */
  readonly privateKey: string;
  /** PEM CA certificate(s) the MTLS listener trusts for client certificates; needed with `mutualPort`. */
  readonly clientCa?: string;
}

export const SCRAM_MECHANISMS = ['SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;
export type ScramMechanism = (typeof SCRAM_MECHANISMS)[number];

export interface ScramUser {
  readonly username: string;
  readonly password: string;
  /** Default: both SCRAM-SHA-256 and SCRAM-SHA-512. */
  readonly mechanisms?: readonly ScramMechanism[];
}

const SCRAM_LOGIN = 'org.apache.kafka.common.security.scram.ScramLoginModule required;';

/**
 * server.properties of one combined-mode node, tuned for a small machine (2 cores): two network and I/O
 * threads, few partitions for the internal topics, no initial rebalance delay. With three or more voters,
 * replication factor 3 (capped at the voter count) and min.insync.replicas 2; alone, 1 and 1.
 */
export function brokerProperties(layout: BrokerLayout): Properties {
  const { nodeId, host, port, controllerPort, saslPort, voters, logDir, tls, relayed } = layout;
  const replication = Math.min(voters.length, 3);
  const minInsync = replication >= 3 ? 2 : 1;
  const listeners = [`PLAINTEXT://${host}:${port}`, `CONTROLLER://${host}:${controllerPort}`];
  const advertised = [`PLAINTEXT://${host}:${port}`];
  const protocols = ['CONTROLLER:PLAINTEXT', 'PLAINTEXT:PLAINTEXT'];
  const addListener = (name: string, protocol: string, listenerPort: number): void => {
    listeners.push(`${name}://${host}:${listenerPort}`);
    advertised.push(`${name}://${host}:${listenerPort}`);
    protocols.push(`${name}:${protocol}`);
  };
  if (saslPort !== undefined) addListener('SASL_PLAINTEXT', 'SASL_PLAINTEXT', saslPort);
  if (relayed !== undefined) {
    listeners.push(`RELAYED://${host}:${relayed.port}`);
    advertised.push(`RELAYED://${host}:${relayed.advertisedPort}`);
    protocols.push('RELAYED:PLAINTEXT');
  }
  if (tls !== undefined) {
    addListener('SSL', 'SSL', tls.port);
    if (tls.mutualPort !== undefined) addListener('MTLS', 'SSL', tls.mutualPort);
    if (tls.saslPort !== undefined) {
      if (saslPort === undefined) throw new Error('the SASL_SSL listener needs the SASL listener: its SCRAM users are created with it');
      addListener('SASL_SSL', 'SASL_SSL', tls.saslPort);
    }
  }
  const base: Properties = {
    'process.roles': 'broker,controller',
    'node.id': nodeId,
    'controller.quorum.voters': voters.map((v) => `${v.nodeId}@${v.host}:${v.controllerPort}`).join(','),
    listeners: listeners.join(','),
    'advertised.listeners': advertised.join(','),
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.security.protocol.map': protocols.join(','),
    'log.dirs': logDir,
    'num.partitions': 1,
    'default.replication.factor': replication,
    'min.insync.replicas': minInsync,
    'offsets.topic.replication.factor': replication,
    'offsets.topic.num.partitions': 5,
    'transaction.state.log.replication.factor': replication,
    'transaction.state.log.min.isr': minInsync,
    'transaction.state.log.num.partitions': 5,
    // A transaction left open by a killed worker holds read_committed readers of its partitions until the
    // coordinator aborts it: it looks for timed-out ones every 10 s by default, every second here.
    'transaction.abort.timed.out.transaction.cleanup.interval.ms': 1000,
    // The longest transaction a producer may ask for (Kafka: 15 min): what one partner's open transaction on a
    // shared command topic can hold back every other partner for. 60 s is the Java producer's default
    // transaction.timeout.ms, so producers on their defaults work; a longer one is refused at its start.
    'transaction.max.timeout.ms': 60_000,
    'group.initial.rebalance.delay.ms': 0,
    'num.network.threads': 2,
    'num.io.threads': 2,
    'num.recovery.threads.per.data.dir': 1,
    'background.threads': 2,
    'log.retention.hours': 24,
    // A dead node is fenced (its partitions get new leaders) after 4 s instead of 9 s: fault tests fail over faster.
    'broker.heartbeat.interval.ms': 1000,
    'broker.session.timeout.ms': 4000,
    ...(tls === undefined ? {} : tlsProperties(tls)),
  };
  if (saslPort === undefined) {
    if (layout.superUsers !== undefined) throw new Error('the authorizer needs the SASL listener: without it every client is ANONYMOUS, a super user');
    return base;
  }
  const saslListeners = tls?.saslPort === undefined ? ['sasl_plaintext'] : ['sasl_plaintext', 'sasl_ssl'];
  return {
    ...base,
    'sasl.enabled.mechanisms': SCRAM_MECHANISMS.join(','),
    ...Object.fromEntries(saslListeners.flatMap((listener) => SCRAM_MECHANISMS.map((m) => [`listener.name.${listener}.${m.toLowerCase()}.sasl.jaas.config`, SCRAM_LOGIN]))),
    ...(layout.superUsers === undefined ? {} : authorizerProperties(layout.superUsers)),
  };
}

/** The broker's key store for every TLS listener; MTLS alone also requires and checks client certificates. */
function tlsProperties(tls: BrokerTls): Properties {
  if (tls.mutualPort !== undefined && tls.clientCa === undefined) throw new Error("the MTLS listener needs clientCa: the CA its clients' certificates chain to");
  return {
    'ssl.keystore.type': 'PEM',
    'ssl.keystore.certificate.chain': tls.certificateChain.trim(),
    'ssl.keystore.key': tls.privateKey.trim(),
    ...(tls.mutualPort === undefined
      ? {}
      : {
          'listener.name.mtls.ssl.client.auth': 'required',
          'listener.name.mtls.ssl.truststore.type': 'PEM',
          'listener.name.mtls.ssl.truststore.certificates': tls.clientCa!.trim(),
        }),
  };
}

export const STANDARD_AUTHORIZER = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
const PRINCIPAL = /^User:[A-Za-z0-9._@+-]+$/;

function authorizerProperties(superUsers: readonly string[]): Properties {
  const bad = superUsers.find((principal) => !PRINCIPAL.test(principal));
  if (bad !== undefined) throw new Error(`super user ${JSON.stringify(bad)} is not a principal User:<name>`);
  return {
    'authorizer.class.name': STANDARD_AUTHORIZER,
    'allow.everyone.if.no.acl.found': false,
    'super.users': [...new Set(['User:ANONYMOUS', ...superUsers])].join(';'),
  };
}

// StorageTool parses `[name=...,password=...]`: keep to characters that need no quoting there.
const SAFE_CREDENTIAL = /^[A-Za-z0-9._@+-]+$/;

/** `--add-scram` arguments of `kafka.tools.StorageTool format`, creating the users at format time. */
export function scramFormatArgs(users: readonly ScramUser[]): string[] {
  return users.flatMap((user) => {
    for (const [what, value] of [
      ['username', user.username],
      ['password', user.password],
    ] as const) {
      if (!SAFE_CREDENTIAL.test(value)) throw new Error(`SCRAM ${what} may only use letters, digits and . _ @ + -: ${JSON.stringify(what === 'username' ? value : '***')}`);
    }
    return (user.mechanisms ?? SCRAM_MECHANISMS).flatMap((m) => ['--add-scram', `${m}=[name=${user.username},password=${user.password}]`]);
  });
}

/** A random KRaft cluster id: 16 random bytes, URL-safe base64 without padding, as Kafka's Uuid prints them. */
export function randomClusterId(randomBytes: (size: number) => Buffer): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id; // Kafka avoids ids a command line would read as an option
  }
}
