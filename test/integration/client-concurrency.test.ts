import { ServiceReplyError, WholesaleClient } from '../../src/client';
import { clientConfigFor } from '../support/client';
import { useService } from '../support/service-fixture';

/**
 * 1,000 calls in flight from one client at once. Each reply must be the call's own: numbers under 50
 * configured non-portable prefixes get their prefix's own reason code, the others Eligible, and malformed
 * ones a BAD_REQUEST — so a reply delivered to the wrong call would show.
 */
const PREFIXES = Array.from({ length: 50 }, (_, i) => `19${String(i).padStart(2, '0')}`);
const CALLS = 1000;

const randomDigits = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 10)).join('');

type Expected = { kind: 'reject'; code: string } | { kind: 'eligible' } | { kind: 'bad' };

function callFor(i: number): { gpsi: string; expected: Expected } {
  if (i % 10 === 9) return { gpsi: `12ab${i}`, expected: { kind: 'bad' } };
  if (i % 2 === 0) {
    const prefix = PREFIXES[i % PREFIXES.length];
    return { gpsi: `${prefix}${randomDigits(7)}`, expected: { kind: 'reject', code: `R${prefix}` } };
  }
  return { gpsi: `17${randomDigits(9)}`, expected: { kind: 'eligible' } };
}

describe('WholesaleClient under load', () => {
  let client: WholesaleClient;

  const fx = useService({ env: { NON_PORTABLE_RANGES: PREFIXES.map((p) => `${p}:R${p}:Range${p}`).join(';') } });

  beforeAll(async () => {
    client = fx.track(await WholesaleClient.connect({ config: clientConfigFor(fx.config, { CLIENT_TIMEOUT_MS: '60000' }) }));
  });

  it(`resolves ${CALLS} concurrent calls, each to its own reply`, async () => {
    await client.checkPortInEligibility({ gpsi: '17000000000' }); // warm the registry lookups, as a long-lived client would be

    // Two rounds: the first includes the JIT warm-up of client and (in-process) service, the second is steady state.
    for (const round of ['cold', 'warm']) {
      const calls = Array.from({ length: CALLS }, (_, i) => callFor(i));
      const started = process.hrtime.bigint();
      const outcomes = await Promise.all(
        calls.map(({ gpsi }) =>
          client.checkPortInEligibility({ gpsi }).then(
            (reply) => ({ reply, error: undefined }),
            (error: unknown) => ({ reply: undefined, error }),
          ),
        ),
      );
      const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
      console.log(
        `${CALLS} concurrent calls from one client (${round}) resolved in ${elapsedMs.toFixed(0)} ms (${((CALLS / elapsedMs) * 1000).toFixed(0)} calls/s; the service runs in the same process)`,
      );

      const mismatches = outcomes.flatMap((outcome, i) => {
        const { expected, gpsi } = calls[i];
        const ok =
          expected.kind === 'bad'
            ? outcome.error instanceof ServiceReplyError && outcome.error.code === 'BAD_REQUEST'
            : expected.kind === 'eligible'
              ? outcome.reply?.eligibilityStatus === 'Eligible'
              : outcome.reply?.eligibilityStatus === 'Reject' && outcome.reply.reasonCode === expected.code;
        return ok ? [] : [{ gpsi, expected, got: outcome.reply ?? String(outcome.error) }];
      });
      expect(mismatches).toEqual([]);
    }
    expect(client.inFlight).toBe(0);
  });
});
