import { join } from 'node:path';
import { loadConfig } from '../../../src/app/config';
import { loadSchemas } from '../../../src/adapters/registry/schemas';
import { TOPIC_RECORDS } from '../../../src/adapters/registry/topology';
import { COMMAND_TOPICS, ERROR_REPLY } from '../../../src/contract/topics';
import { PARTNER_TOPIC_ROLES, partnerTopic } from '../../../src/contract/partner-topics';
import { contractDrift, readAsyncApi, type CodeContract, type DocumentedContract } from '../../support/asyncapi';

/** asyncapi.yaml against the contract the code defines: it cannot drift in either direction. */
const ASYNCAPI = join(__dirname, '..', '..', '..', 'asyncapi.yaml');

const defaults = loadConfig({ KAFKA_BROKERS: 'k:1', SCHEMA_REGISTRY_URL: 'http://r', REDIS_URL: 'redis://x', AUTH_MODE: 'none' });
const code: CodeContract = {
  schemas: [...loadSchemas().keys()],
  topics: defaults.topics,
  // A partner's channels are documented once, with the partner id as a parameter.
  partnerTopics: Object.fromEntries(
    PARTNER_TOPIC_ROLES.map((role) => [
      role,
      partnerTopic(defaults.partnerTopicPrefix, 'PARTNER', role).replace(`${defaults.partnerTopicPrefix}PARTNER.`, `${defaults.partnerTopicPrefix}{partnerId}.`),
    ]),
  ),
  topicRecords: TOPIC_RECORDS,
  commandTopics: COMMAND_TOPICS,
  errorReply: ERROR_REPLY,
};

describe('asyncapi.yaml', () => {
  let documented: DocumentedContract;
  beforeAll(async () => {
    documented = await readAsyncApi(ASYNCAPI);
  });

  it('parses as valid AsyncAPI with its Avro payloads resolved from schemas/', () => {
    expect(documented.errors).toEqual([]);
    expect(documented.channels.get(defaults.topics.portinCommands)).toContain('wholesale.portin.v1.CheckPortInEligibility');
  });

  it('documents every schema, every configured topic, every record of the topology and each command with its reply, and nothing more', () => {
    expect(contractDrift(documented, code)).toEqual([]);
  });

  it('reports a schema, a topic or a record added to the code without being documented', () => {
    const drift = contractDrift(documented, {
      ...code,
      schemas: [...loadSchemas().keys(), 'wholesale.audit.v1.AuditRecord'],
      topics: { ...code.topics, auditEvents: 'wholesale.audit.events.v1' },
      topicRecords: { ...code.topicRecords, portinCommands: [...code.topicRecords.portinCommands, 'wholesale.portin.v1.PausePortIn'] },
    });
    expect(drift).toEqual(
      expect.arrayContaining([
        'schema wholesale.audit.v1.AuditRecord (schemas/) is not the payload of any message',
        'topic wholesale.audit.events.v1 (auditEvents) has no channel',
        `record wholesale.portin.v1.PausePortIn on ${defaults.topics.portinCommands} (portinCommands) is not a message of its channel`,
        `record wholesale.portin.v1.PausePortIn on ${code.partnerTopics.portinCommands} (portinCommands) is not a message of its channel`,
        `command wholesale.portin.v1.PausePortIn is received by no operation on ${defaults.topics.portinCommands}`,
      ]),
    );
    expect(drift).toHaveLength(5);
  });

  it('reports what the document says that the code does not define: a stale record, a stale topic, a wrong reply address, a correlation id in a field that does not exist', () => {
    const channels = new Map([...documented.channels].map(([address, records]) => [address, new Set(records)]));
    channels.get(defaults.topics.portinReplies)!.add('wholesale.portin.v1.RetiredReply');
    channels.set('wholesale.retired.v1', new Set());
    const operations = documented.operations.map((o) => (o.id === 'checkPortInEligibility' ? { ...o, replyAddress: '$message.header#/kafka_replyTopic' } : o));
    const correlationIds = new Map(documented.correlationIds).set('np.portin.v1.PortConfirmed', '$message.payload#/correlationId');
    expect(contractDrift({ ...documented, channels, operations, correlationIds }, code)).toEqual([
      `channel ${defaults.topics.portinReplies} documents wholesale.portin.v1.RetiredReply, which the topology does not put on portinReplies`,
      'message np.portin.v1.PortConfirmed: its correlation id $message.payload#/correlationId names a field its schema does not have',
      'channel wholesale.retired.v1 is not a configured topic',
      'operation checkPortInEligibility: the reply address must be $message.header#/X-Reply-Topic',
    ]);
  });
});
