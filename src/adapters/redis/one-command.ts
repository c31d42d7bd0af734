import { Redis } from 'ioredis';

/**
 * Sends one command on a short-lived connection and returns its answer; throws when Redis is not there
 * (no retry, no offline queue). For probes: the dev stack waiting for its servers.
 */
export async function sendOneCommand(host: string, port: number, command: string, ...args: string[]): Promise<string> {
  const client = new Redis({
    host,
    port,
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined); // reported through the rejected promise below
  try {
    await client.connect();
    return String(await client.call(command, ...args));
  } finally {
    client.disconnect();
  }
}
