import { devShellExports } from '../../../dev/keys/dev-env';

/** `npm run dev:env`: what the product CLI needs against the dev stack, as shell exports (no dev flags in the CLI). */
describe('devShellExports', () => {
  it('exports the customer node, the token and the dead-letter key as the CLI reads them, quoted for the shell', () => {
    expect(devShellExports({ customerId: '100000108465', token: 'a.b.c', deadLetterKey: { id: 'dev-dlq', key: 'k+/=' } })).toEqual([
      "export WHOLESALE_CUSTOMER_ID='100000108465'",
      "export WHOLESALE_TOKEN='a.b.c'",
      "export DLQ_DECRYPTION_KEYS='dev-dlq:k+/='",
    ]);
  });

  it('keeps a quote inside a value literal', () => {
    expect(devShellExports({ customerId: "it's", token: 't', deadLetterKey: { id: 'i', key: 'k' } })[0]).toBe("export WHOLESALE_CUSTOMER_ID='it'\\''s'");
  });
});
