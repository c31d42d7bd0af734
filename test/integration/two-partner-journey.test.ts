import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Kafka } from 'kafkajs';
import { withAdmin } from '../../src/adapters/kafka/admin-session';
import { addPartner } from '../../src/adapters/kafka/partner-provisioning';
import { loadNpSimulatorConfig } from '../../dev/np-simulator/config';
import { loadAdminConfig } from '../../src/cli/config';
import { loadClientConfig } from '../../src/client/config';
import { partnerTopics } from '../../src/contract/partner-topics';
import { WholesaleClient } from '../../src/client/wholesale-client';
import { runDemoJourney } from '../../dev/demo/journey';
import { startNpSimulator } from '../../dev/np-simulator/np-simulator';
import { principalOf, startAclBroker, type AclBroker } from '../support/acl-broker';
import { testAuth, type TestAuth } from '../support/auth';
import { readEveryRecord, recordParts } from '../support/topic-dump';
import { envFor, testLogger } from '../support/harness';
import { useService } from '../support/service-fixture';

/**
 * Issue 13's proof end to end: the broker enforces the ACLs (StandardAuthorizer), partners A and B are
 * provisioned the way `wholesale admin partner add` does it, the service runs as its own principal, and
 * the demo journey (eligibility → port-in completed by the NP simulator → buckets → balances → history)
 * runs for both partners at once, each client connected as its partner's principal with its own token.
 * Then every record of each partner's six topics is read back: nothing of the other partner is there.
 */
jest.setTimeout(300_000);

const CUSTOMERS = JSON.parse(readFileSync(join(__dirname, '..', '..', 'config', 'customers.json'), 'utf8'));
const PARTNERS = [
  { id: '100000108464', brand: '100000108465', gpsi: `1${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}42` },
  { id: '200000000001', brand: '200000000002', gpsi: `1${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}42` },
];
const PREFIX = 'wholesale.partner.';

/** Every record of `topics` from the beginning, as one string per record (key, headers and value bytes). */
async function readAll(kafka: Kafka, topics: string[]): Promise<Map<string, string[]>> {
  const records = await readEveryRecord(kafka, topics);
  return new Map([...records].map(([topic, messages]) => [topic, messages.map((m) => Buffer.concat(recordParts(m)).toString('latin1'))]));
}

describe('two partners on one broker with ACLs: the demo journey for both at once', () => {
  let broker: AclBroker;
  let auth: TestAuth;
  const clients: WholesaleClient[] = [];

  beforeAll(async () => {
    broker = await startAclBroker({ partnerIds: PARTNERS.map((p) => p.id) });
    auth = await testAuth(CUSTOMERS);
  });

  const fx = useService({
    env: () => ({ ...broker.env(broker.service), ...auth.env, TOPIC_PARTITIONS: '1', RATE_LIMIT_PER_SECOND: '1000', PARTNER_TOPIC_PREFIX: PREFIX }),
    prepare: async (config) => {
      const settings = loadAdminConfig({ ...envFor(config), ...broker.env(broker.admin), TOPIC_PARTITIONS: '1', PARTNER_TOPIC_PREFIX: PREFIX });
      await withAdmin(broker.connection(broker.admin), async (admin) => {
        for (const partner of PARTNERS) await addPartner(admin, settings, partner.id, principalOf(broker.partners[partner.id]));
      });
    },
  });

  beforeAll(async () => {
    const simulator = fx.track(
      await startNpSimulator(
        loadNpSimulatorConfig({ ...process.env, ...envFor(fx.config), ...broker.env(broker.service), NP_SIM_GROUP_ID: `np-sim-${randomUUID().slice(0, 8)}`, NP_SIM_TIME_SCALE: '100000' }),
        { log: testLogger(fx.config), fromBeginning: false },
      ),
    );
    await simulator.joined;
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    auth?.cleanup();
    await broker?.dispose();
  });

  it('runs the whole journey for A and B concurrently, each on its own topics, and neither topic set holds anything of the other', async () => {
    const printed = new Map<string, string[]>();
    await Promise.all(
      PARTNERS.map(async (partner) => {
        const clientConfig = loadClientConfig({
          ...envFor(fx.config),
          ...broker.env(broker.partners[partner.id]),
          SCHEMA_REGISTRY_URL: fx.config.schemaRegistryUrl,
          CLIENT_ID: `partner-${partner.id}`,
          CLIENT_TIMEOUT_MS: '30000',
        });
        const client = await WholesaleClient.connect({
          config: clientConfig,
          tokenProvider: auth.signer.tokenProvider(partner.brand),
          wholesaleCustomerId: partner.brand,
          log: testLogger(fx.config),
        });
        clients.push(client);
        expect(client.topics.replies.portin).toBe(partnerTopics(PREFIX, partner.id).portinReplies);
        const lines: string[] = [];
        printed.set(partner.id, lines);
        await runDemoJourney({ client, print: (line) => lines.push(line), waitMs: 60_000, gpsi: partner.gpsi });
      }),
    );
    for (const partner of PARTNERS) {
      const out = printed.get(partner.id)!.join('\n');
      expect(out).toMatch(/⚡ event PortInActivationEvent .* → COMPLETED/);
      expect(out).toContain('⚡ event SubscriptionActivated');
      expect(out).toMatch(/\nDone: \d+ events seen for \d+\./);
    }

    // The audit, as the service's principal (a super user): each partner's six topics, record by record.
    const audit = broker.client(broker.service, { retry: { retries: 5 } });
    for (const [self, other] of [PARTNERS, [...PARTNERS].reverse()] as const) {
      const own = partnerTopics(PREFIX, self.id);
      const records = await readAll(audit, Object.values(own));
      const everything = [...records.values()].flat();
      // its client sent on its own command topics
      expect(records.get(own.portinCommands)!.some((r) => r.includes(self.gpsi))).toBe(true);
      expect(records.get(own.balanceCommands)!.some((r) => r.includes(self.gpsi))).toBe(true);
      expect(records.get(own.portinReplies)!.length).toBeGreaterThanOrEqual(3); // eligibility, create, query
      expect(records.get(own.balanceReplies)!.length).toBeGreaterThanOrEqual(5);
      expect(records.get(own.portinEvents)!.some((r) => r.includes(self.gpsi))).toBe(true);
      expect(records.get(own.balanceEvents)!.some((r) => r.includes(self.gpsi))).toBe(true);
      for (const record of everything) {
        expect(record).not.toContain(other.gpsi);
        expect(record).not.toContain(other.brand);
      }
    }
  });
});
