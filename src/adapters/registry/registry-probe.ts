/**
 * Is the schema registry answering? GET <registry>/config (the global compatibility level) exists on
 * Confluent's registry and on Apicurio's ccompat API, is small, and needs no subject. Credentials in the
 * URL (https://user:pass@host) are sent as Basic authentication, as fetch refuses them in the URL.
 */
export async function probeRegistry(registryUrl: string, signal?: AbortSignal): Promise<{ ok: boolean; detail: string }> {
  const url = new URL(`${registryUrl.replace(/\/+$/, '')}/config`);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (url.username || url.password) {
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  const response = await fetch(url, { headers, signal });
  await response.arrayBuffer(); // release the connection
  return response.ok ? { ok: true, detail: `HTTP ${response.status}` } : { ok: false, detail: `GET /config answered HTTP ${response.status}` };
}
