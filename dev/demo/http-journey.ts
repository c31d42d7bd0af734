// The HTTP part of `npm run demo`: the same service through the gateway (docs/http.md) — the port-in and
// balances the Kafka journey made, read over HTTP, a refused token, and a change retried with the same
// X-Correlation-Id that is answered once and applied once. Every call prints its method, path, status
// and body, as a partner would see them with curl.

export interface HttpDemoOptions {
  baseUrl: string;
  token: string;
  wholesaleCustomerId: string;
  gpsi: string;
  print: (line: string) => void;
}

/** The part of a QueryBalances reply row the demo reads. */
type BalanceRow = { subBalances: { subBalanceType: string; subBalanceInstId: string }[] };

export async function runHttpDemo(options: HttpDemoOptions): Promise<void> {
  const { baseUrl, print } = options;
  const call = async (method: string, path: string, init: { body?: unknown; token?: string; correlationId?: string } = {}) => {
    const headers: Record<string, string> = { authorization: `Bearer ${init.token ?? options.token}`, wholesaleCustomerId: options.wholesaleCustomerId };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    if (init.correlationId) headers['x-correlation-id'] = init.correlationId;
    print(`  → ${method} ${path}${init.body === undefined ? '' : ` ${JSON.stringify(init.body)}`}${init.correlationId ? ` (X-Correlation-Id ${init.correlationId})` : ''}`);
    const response = await fetch(new URL(path, baseUrl), { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
    const body = (await response.json()) as Record<string, unknown>;
    const text = JSON.stringify(body);
    print(`  ← ${response.status} ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`);
    return body;
  };
  print(`\n── HTTP: the same service through the gateway at ${baseUrl} (docs/http.md) ${'─'.repeat(8)}`);
  await call('GET', `/portins?gpsi=${options.gpsi}`);
  print('  (a token that is not one: refused with 401 before anything is sent, where the gateway verifies tokens)');
  await call('POST', '/portins/eligibility', { body: { gpsi: options.gpsi }, token: 'not-a-token' });
  const balances = await call('GET', `/balances?gpsi=${options.gpsi}`);
  const sub = (balances.balances as BalanceRow[] | undefined)?.flatMap((b) => b.subBalances).find((s) => s.subBalanceType === 'On-Net Data');
  if (!sub) return;
  const change = { gpsi: options.gpsi, balances: [{ subBalanceInstId: sub.subBalanceInstId, subBalanceType: 'On-Net Data', unitType: 'MB', action: 'Subtract', quantity: 10 }] };
  const correlationId = `demo-${Date.now()}`;
  await call('PATCH', '/balances', { body: change, correlationId });
  print('  (the same request again, as after a timeout: the same outcome, subtracted once)');
  await call('PATCH', '/balances', { body: change, correlationId });
}
