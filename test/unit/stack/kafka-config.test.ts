import { brokerProperties, randomClusterId, scramFormatArgs, type BrokerLayout } from '../../../dev/stack/kafka/broker-config';
import { renderProperties } from '../../../dev/stack/kafka/properties';
import { kafkaImageEnvironment } from '../../../dev/stack/containers';

const voter = (nodeId: number) => ({ nodeId, host: '127.0.0.1', controllerPort: 19000 + nodeId });
const layout = (overrides: Partial<BrokerLayout> = {}): BrokerLayout => ({
  nodeId: 1,
  host: '127.0.0.1',
  port: 18001,
  controllerPort: 19001,
  voters: [voter(1)],
  logDir: '/tmp/k/data',
  ...overrides,
});

describe('renderProperties', () => {
  it('writes key=value lines in order, ending with a newline', () => {
    expect(renderProperties({ 'node.id': 1, 'process.roles': 'broker,controller', flag: true })).toBe('node.id=1\nprocess.roles=broker,controller\nflag=true\n');
  });

  it('escapes what java.util.Properties would misread', () => {
    expect(renderProperties({ 'a key=x:y': ' lead', path: 'C:\\dir', multi: 'one\ntwo' })).toBe('a\\ key\\=x\\:y=\\ lead\npath=C:\\\\dir\nmulti=one\\ntwo\n');
  });
});

describe('brokerProperties', () => {
  it('runs one node as broker and controller with replication 1', () => {
    const p = brokerProperties(layout());
    expect(p).toMatchObject({
      'process.roles': 'broker,controller',
      'node.id': 1,
      'controller.quorum.voters': '1@127.0.0.1:19001',
      listeners: 'PLAINTEXT://127.0.0.1:18001,CONTROLLER://127.0.0.1:19001',
      'advertised.listeners': 'PLAINTEXT://127.0.0.1:18001',
      'controller.listener.names': 'CONTROLLER',
      'inter.broker.listener.name': 'PLAINTEXT',
      'log.dirs': '/tmp/k/data',
      'default.replication.factor': 1,
      'min.insync.replicas': 1,
      'offsets.topic.replication.factor': 1,
      'transaction.state.log.min.isr': 1,
      'group.initial.rebalance.delay.ms': 0,
      'num.network.threads': 2,
      'num.io.threads': 2,
    });
    expect(p['sasl.enabled.mechanisms']).toBeUndefined();
  });

  it('gives a three-voter quorum replication 3 and min.insync.replicas 2, the same voters line on every node', () => {
    const voters = [voter(1), voter(2), voter(3)];
    const nodes = [1, 2, 3].map((id) => brokerProperties(layout({ nodeId: id, controllerPort: 19000 + id, voters })));
    for (const p of nodes) {
      expect(p['controller.quorum.voters']).toBe('1@127.0.0.1:19001,2@127.0.0.1:19002,3@127.0.0.1:19003');
      expect(p).toMatchObject({ 'default.replication.factor': 3, 'min.insync.replicas': 2, 'offsets.topic.replication.factor': 3, 'transaction.state.log.min.isr': 2 });
    }
    expect(nodes.map((p) => p['node.id'])).toEqual([1, 2, 3]);
  });

  it('adds a SASL_PLAINTEXT listener with SCRAM-SHA-256/512 and keeps PLAINTEXT between brokers', () => {
    const p = brokerProperties(layout({ saslPort: 18002 }));
    expect(p.listeners).toBe('PLAINTEXT://127.0.0.1:18001,CONTROLLER://127.0.0.1:19001,SASL_PLAINTEXT://127.0.0.1:18002');
    expect(p['advertised.listeners']).toBe('PLAINTEXT://127.0.0.1:18001,SASL_PLAINTEXT://127.0.0.1:18002');
    expect(p['inter.broker.listener.name']).toBe('PLAINTEXT');
    expect(p['sasl.enabled.mechanisms']).toBe('SCRAM-SHA-256,SCRAM-SHA-512');
    expect(p['listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config']).toMatch(/ScramLoginModule required;$/);
    expect(p['listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config']).toMatch(/ScramLoginModule required;$/);
  });

  it('turns on the StandardAuthorizer with super users only when asked, ANONYMOUS (the PLAINTEXT listeners) among them', () => {
    expect(brokerProperties(layout({ saslPort: 18002 }))['authorizer.class.name']).toBeUndefined();
    const p = brokerProperties(layout({ saslPort: 18002, superUsers: ['User:wholesale-svc'] }));
    expect(p['authorizer.class.name']).toBe('org.apache.kafka.metadata.authorizer.StandardAuthorizer');
    expect(p['allow.everyone.if.no.acl.found']).toBe(false);
    expect(p['super.users']).toBe('User:ANONYMOUS;User:wholesale-svc');
  });

  it('refuses an authorizer without the SASL listener (every client would be ANONYMOUS) and a super user that is no principal', () => {
    expect(() => brokerProperties(layout({ superUsers: ['User:svc'] }))).toThrow(/needs the SASL listener/);
    expect(() => brokerProperties(layout({ saslPort: 18002, superUsers: ['svc;User:mallory'] }))).toThrow(/not a principal/);
  });

  const PEM = { certificateChain: '-----BEGIN CERTIFICATE-----\nAAA\n-----END CERTIFICATE-----\n', privateKey: '-----BEGIN PRIVATE KEY-----\nBBB\n-----END PRIVATE KEY-----\n' };

  it('adds an SSL listener with a PEM key store written inline, asking clients for no certificate', () => {
    const p = brokerProperties(layout({ tls: { port: 18003, ...PEM } }));
    expect(p.listeners).toBe('PLAINTEXT://127.0.0.1:18001,CONTROLLER://127.0.0.1:19001,SSL://127.0.0.1:18003');
    expect(p['advertised.listeners']).toBe('PLAINTEXT://127.0.0.1:18001,SSL://127.0.0.1:18003');
    expect(p['listener.security.protocol.map']).toBe('CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL');
    expect(p).toMatchObject({
      'ssl.keystore.type': 'PEM',
      'ssl.keystore.certificate.chain': PEM.certificateChain.trim(),
      'ssl.keystore.key': PEM.privateKey.trim(),
      'inter.broker.listener.name': 'PLAINTEXT',
    });
    expect(p['ssl.client.auth']).toBeUndefined();
    expect(renderProperties(p)).toContain('ssl.keystore.key=-----BEGIN PRIVATE KEY-----\\nBBB\\n-----END PRIVATE KEY-----\n');
  });

  it('adds an MTLS listener (protocol SSL) requiring client certificates of the given CA, and SASL_SSL with SCRAM when SASL is on', () => {
    const p = brokerProperties(layout({ saslPort: 18002, tls: { port: 18003, mutualPort: 18004, saslPort: 18005, clientCa: 'CA-PEM\n', ...PEM } }));
    expect(p.listeners).toBe('PLAINTEXT://127.0.0.1:18001,CONTROLLER://127.0.0.1:19001,SASL_PLAINTEXT://127.0.0.1:18002,SSL://127.0.0.1:18003,MTLS://127.0.0.1:18004,SASL_SSL://127.0.0.1:18005');
    expect(p['listener.security.protocol.map']).toBe('CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SSL:SSL,MTLS:SSL,SASL_SSL:SASL_SSL');
    expect(p).toMatchObject({ 'listener.name.mtls.ssl.client.auth': 'required', 'listener.name.mtls.ssl.truststore.type': 'PEM', 'listener.name.mtls.ssl.truststore.certificates': 'CA-PEM' });
    expect(p['listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config']).toMatch(/ScramLoginModule required;$/);
    expect(p['listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config']).toMatch(/ScramLoginModule required;$/);
  });

  it('refuses an MTLS listener without a client CA and SASL_SSL without the SASL users', () => {
    expect(() => brokerProperties(layout({ tls: { port: 18003, mutualPort: 18004, ...PEM } }))).toThrow(/needs clientCa/);
    expect(() => brokerProperties(layout({ tls: { port: 18003, saslPort: 18005, ...PEM } }))).toThrow(/needs the SASL listener/);
  });
});

describe('scramFormatArgs', () => {
  it('creates each user for both mechanisms by default, or for the mechanisms named', () => {
    expect(
      scramFormatArgs([
        { username: 'alice', password: 'alice-secret' },
        { username: 'bob', password: 'b0b', mechanisms: ['SCRAM-SHA-512'] },
      ]),
    ).toEqual([
      '--add-scram',
      'SCRAM-SHA-256=[name=alice,password=alice-secret]',
      '--add-scram',
      'SCRAM-SHA-512=[name=alice,password=alice-secret]',
      '--add-scram',
      'SCRAM-SHA-512=[name=bob,password=b0b]',
    ]);
  });

  it('refuses characters the format tool would misparse, without echoing the password', () => {
    expect(() => scramFormatArgs([{ username: 'a,b', password: 'x' }])).toThrow(/username.*"a,b"/);
    expect(() => scramFormatArgs([{ username: 'alice', password: 'p]w' }])).toThrow(/password.*\*\*\*/);
  });
});

describe('randomClusterId', () => {
  it('is 16 bytes in URL-safe base64 without padding (22 characters)', () => {
    expect(randomClusterId(() => Buffer.alloc(16, 0x41))).toBe('QUFBQUFBQUFBQUFBQUFBQQ');
    expect(randomClusterId(() => Buffer.alloc(16, 0xff))).toMatch(/^_{21}w$/);
  });

  it('draws again when the id would start with "-" (read as an option on a command line)', () => {
    const draws = [Buffer.alloc(16, 0xf8), Buffer.alloc(16, 0x41)];
    expect(randomClusterId(() => draws.shift()!)).toBe('QUFBQUFBQUFBQUFBQUFBQQ');
  });
});

describe('kafkaImageEnvironment', () => {
  it('maps properties to the apache/kafka image variables (. → _, _ → __, - → ___)', () => {
    expect(kafkaImageEnvironment({ 'node.id': 1, 'log.dirs': '/d', 'listener.name.sasl_plaintext.scram-sha-256.x': 'y' })).toEqual({
      KAFKA_NODE_ID: '1',
      KAFKA_LOG_DIRS: '/d',
      KAFKA_LISTENER_NAME_SASL__PLAINTEXT_SCRAM___SHA___256_X: 'y',
    });
  });
});
