import { readTopics } from '../../../src/config/kafka';
import { EnvReader } from '../../../src/config/env';
import { describeRule, partnerAcls, partnerAclsToRemove, provisionedPartners, provisionerAcls, serviceAcls, type AclRule } from '../../../src/security/kafka-acls';

/** The ACL lists: what a partner, the service and the provisioner get, written out in full. */
const PREFIX = 'wholesale.partner.';
const topics = readTopics(new EnvReader({}));
const commandTopics = [topics.portinCommands, topics.balanceCommands];
const lines = (rules: readonly AclRule[]) => rules.map(describeRule);

describe('partnerAcls', () => {
  it('grants Write+Describe on the shared and its own command topics, Read+Describe on its namespace, Read on its groups, transactions in its namespace: nothing else', () => {
    expect(lines(partnerAcls({ principal: 'User:partner-a', partnerId: 'A1', partnerPrefix: PREFIX, commandTopics }))).toEqual([
      'User:partner-a ALLOW write topic wholesale.portin.commands.v1 (literal)',
      'User:partner-a ALLOW describe topic wholesale.portin.commands.v1 (literal)',
      'User:partner-a ALLOW write topic wholesale.balance.commands.v1 (literal)',
      'User:partner-a ALLOW describe topic wholesale.balance.commands.v1 (literal)',
      'User:partner-a ALLOW write topic wholesale.partner.A1.portin.commands.v1 (literal)',
      'User:partner-a ALLOW describe topic wholesale.partner.A1.portin.commands.v1 (literal)',
      'User:partner-a ALLOW write topic wholesale.partner.A1.balance.commands.v1 (literal)',
      'User:partner-a ALLOW describe topic wholesale.partner.A1.balance.commands.v1 (literal)',
      'User:partner-a ALLOW read topic wholesale.partner.A1. (prefixed)',
      'User:partner-a ALLOW describe topic wholesale.partner.A1. (prefixed)',
      'User:partner-a ALLOW read group wholesale.partner.A1. (prefixed)',
      'User:partner-a ALLOW write transactionalId wholesale.partner.A1. (prefixed)',
      'User:partner-a ALLOW describe transactionalId wholesale.partner.A1. (prefixed)',
    ]);
  });

  it('ends the namespace with a dot, so partner A1 gets nothing of partner A10', () => {
    const rules = partnerAcls({ principal: 'User:p', partnerId: 'A1', partnerPrefix: PREFIX, commandTopics });
    const prefixed = rules.filter((rule) => rule.patternType === 'prefixed').map((rule) => rule.resourceName);
    expect(new Set(prefixed)).toEqual(new Set(['wholesale.partner.A1.']));
    expect('wholesale.partner.A10.portin.replies.v1'.startsWith(prefixed[0])).toBe(false);
  });

  it('refuses a principal that is not User:<name> and a partner id that cannot name a topic', () => {
    expect(() => partnerAcls({ principal: 'partner-a', partnerId: 'A1', partnerPrefix: PREFIX, commandTopics })).toThrow(/User:<name>/);
    expect(() => partnerAcls({ principal: 'User:a;User:b', partnerId: 'A1', partnerPrefix: PREFIX, commandTopics })).toThrow(/User:<name>/);
    expect(() => partnerAcls({ principal: 'User:a', partnerId: 'A.*', partnerPrefix: PREFIX, commandTopics })).toThrow(/cannot name a topic/);
    expect(() => partnerAcls({ principal: 'User:a', partnerId: '', partnerPrefix: PREFIX, commandTopics })).toThrow(/cannot name a topic/);
  });
});

describe('serviceAcls', () => {
  const base = { principal: 'User:svc', topics, groupId: 'wholesale-workers', partnerPrefix: PREFIX, transactionalIdPrefix: 'wholesale-worker-tx-' };

  it("reads commands (shared and the partners' own) and NP responses in its group, writes replies, events, DLQ, NP requests and the partner namespaces, in transactions under its ids", () => {
    expect(lines(serviceAcls({ ...base, createsTopics: false }))).toEqual([
      'User:svc ALLOW read topic wholesale.portin.commands.v1 (literal)',
      'User:svc ALLOW describe topic wholesale.portin.commands.v1 (literal)',
      'User:svc ALLOW read topic wholesale.balance.commands.v1 (literal)',
      'User:svc ALLOW describe topic wholesale.balance.commands.v1 (literal)',
      'User:svc ALLOW read topic np.portin.responses.v1 (literal)',
      'User:svc ALLOW describe topic np.portin.responses.v1 (literal)',
      'User:svc ALLOW read group wholesale-workers (literal)',
      'User:svc ALLOW write topic wholesale.portin.replies.v1 (literal)',
      'User:svc ALLOW describe topic wholesale.portin.replies.v1 (literal)',
      'User:svc ALLOW describeConfigs topic wholesale.portin.replies.v1 (literal)',
      'User:svc ALLOW write topic wholesale.balance.replies.v1 (literal)',
      'User:svc ALLOW describe topic wholesale.balance.replies.v1 (literal)',
      'User:svc ALLOW describeConfigs topic wholesale.balance.replies.v1 (literal)',
      'User:svc ALLOW write topic wholesale.portin.events.v1 (literal)',
      'User:svc ALLOW describe topic wholesale.portin.events.v1 (literal)',
      'User:svc ALLOW describeConfigs topic wholesale.portin.events.v1 (literal)',
      'User:svc ALLOW write topic wholesale.balance.events.v1 (literal)',
      'User:svc ALLOW describe topic wholesale.balance.events.v1 (literal)',
      'User:svc ALLOW describeConfigs topic wholesale.balance.events.v1 (literal)',
      'User:svc ALLOW write topic wholesale.commands.dlq.v1 (literal)',
      'User:svc ALLOW describe topic wholesale.commands.dlq.v1 (literal)',
      'User:svc ALLOW describeConfigs topic wholesale.commands.dlq.v1 (literal)',
      'User:svc ALLOW write topic np.portin.requests.v1 (literal)',
      'User:svc ALLOW describe topic np.portin.requests.v1 (literal)',
      'User:svc ALLOW describeConfigs topic np.portin.requests.v1 (literal)',
      'User:svc ALLOW read topic wholesale.partner. (prefixed)',
      'User:svc ALLOW write topic wholesale.partner. (prefixed)',
      'User:svc ALLOW describe topic wholesale.partner. (prefixed)',
      'User:svc ALLOW describeConfigs topic wholesale.partner. (prefixed)',
      'User:svc ALLOW write transactionalId wholesale-worker-tx- (prefixed)',
      'User:svc ALLOW describe transactionalId wholesale-worker-tx- (prefixed)',
    ]);
  });

  it('adds Create on exactly its nine own topics when it creates them at start, never on the partner namespaces', () => {
    const extra = serviceAcls({ ...base, createsTopics: true }).filter((rule) => rule.operation === 'create');
    expect(extra.map((rule) => `${rule.resourceName} (${rule.patternType})`).sort()).toEqual(
      Object.values(topics)
        .map((t) => `${t} (literal)`)
        .sort(),
    );
  });
});

describe('provisionerAcls', () => {
  it('manages ACLs on the cluster and creates, deletes and lists only topics under the partner prefix', () => {
    expect(lines(provisionerAcls('User:admin', PREFIX))).toEqual([
      'User:admin ALLOW alter cluster kafka-cluster (literal)',
      'User:admin ALLOW describe cluster kafka-cluster (literal)',
      'User:admin ALLOW create topic wholesale.partner. (prefixed)',
      'User:admin ALLOW delete topic wholesale.partner. (prefixed)',
      'User:admin ALLOW describe topic wholesale.partner. (prefixed)',
    ]);
  });
});

describe('provisionedPartners', () => {
  const a = partnerAcls({ principal: 'User:partner-a', partnerId: 'A', partnerPrefix: PREFIX, commandTopics });
  const b = partnerAcls({ principal: 'User:partner-b', partnerId: 'B', partnerPrefix: PREFIX, commandTopics });
  const service = serviceAcls({ principal: 'User:svc', topics, groupId: 'g', partnerPrefix: PREFIX, createsTopics: true, transactionalIdPrefix: 'w-tx-' });

  it("names each partner with its principals and topics; the service's prefix rule and other topics are no partner", () => {
    const found = provisionedPartners(
      [...b, ...a, ...service],
      ['wholesale.partner.A.portin.replies.v1', 'wholesale.partner.C.balance.events.v1', 'wholesale.portin.replies.v1', 'other'],
      PREFIX,
    );
    expect(found).toEqual([
      { partnerId: 'A', principals: ['User:partner-a'], topics: ['wholesale.partner.A.portin.replies.v1'] },
      { partnerId: 'B', principals: ['User:partner-b'], topics: [] },
      { partnerId: 'C', principals: [], topics: ['wholesale.partner.C.balance.events.v1'] },
    ]);
  });
});

describe('partnerAclsToRemove', () => {
  const input = (partnerId: string, principal = 'User:p') => ({ principal, partnerId, partnerPrefix: PREFIX, commandTopics });

  it('removes every rule of the partner, command topics included, when the principal serves no other partner', () => {
    const existing = [...partnerAcls(input('A')), ...partnerAcls(input('B', 'User:q'))];
    expect(partnerAclsToRemove(input('A'), existing)).toEqual(partnerAcls(input('A')));
  });

  it("keeps Write on the shared command topics while the same principal still holds another partner's namespace; removes the partner's own", () => {
    const existing = [...partnerAcls(input('A')), ...partnerAcls(input('B'))];
    expect(lines(partnerAclsToRemove(input('A'), existing))).toEqual([
      'User:p ALLOW write topic wholesale.partner.A.portin.commands.v1 (literal)',
      'User:p ALLOW describe topic wholesale.partner.A.portin.commands.v1 (literal)',
      'User:p ALLOW write topic wholesale.partner.A.balance.commands.v1 (literal)',
      'User:p ALLOW describe topic wholesale.partner.A.balance.commands.v1 (literal)',
      'User:p ALLOW read topic wholesale.partner.A. (prefixed)',
      'User:p ALLOW describe topic wholesale.partner.A. (prefixed)',
      'User:p ALLOW read group wholesale.partner.A. (prefixed)',
      'User:p ALLOW write transactionalId wholesale.partner.A. (prefixed)',
      'User:p ALLOW describe transactionalId wholesale.partner.A. (prefixed)',
    ]);
  });
});
