import type { AddressInfo } from 'node:net';
import { buildGateway } from '../../src/gateway/app';
import { loadContractSchemas } from '../../src/gateway/contract-schemas';

// docs/http.md's 415: the gateway's HTTP layer listening on the loopback, a requester that answers at once
// and records what it was asked to send (no Kafka needed: a refused body never gets that far).
describe('a body that is not JSON', () => {
  it('is answered 415 UNSUPPORTED_MEDIA_TYPE and not sent, text/plain as any other type; JSON is sent', async () => {
    const sent: unknown[] = [];
    const reply = { status: 'Success', eligibilityStatus: 'Eligible', checkedDate: '2026-01-01T00:00:00Z', reasonCode: null, reasonDesc: null };
    const app = await buildGateway({
      schemas: await loadContractSchemas(),
      resolveCaller: async () => ({ partnerId: '100000108464', token: 'verified' }),
      requesters: { forPartner: async () => ({ call: async (_operation: string, input: unknown) => (sent.push(input), reply as never) }) },
      bodyLimitBytes: 65536,
      rateLimit: { max: 0, windowMs: 1000 },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/portins/eligibility`;
    const post = async (contentType: string) => {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body: '{"gpsi":"19459986891"}' });
      return [contentType, response.status, ((await response.json()) as { error?: { code: string } }).error?.code ?? 'none'];
    };
    try {
      for (const contentType of ['text/plain', 'text/plain; charset=utf-8', 'application/xml']) {
        expect(await post(contentType)).toEqual([contentType, 415, 'UNSUPPORTED_MEDIA_TYPE']);
      }
      expect(sent).toEqual([]);
      expect(await post('application/json')).toEqual(['application/json', 200, 'none']);
      expect(sent).toEqual([{ gpsi: '19459986891' }]);
    } finally {
      await app.close();
    }
  });
});
