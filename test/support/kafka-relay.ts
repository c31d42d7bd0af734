import { createServer, connect, type Server, type Socket } from 'node:net';

// A TCP relay in front of a broker's relayed listener (dev/stack: the `relayed` option), for faults on the
// wire that a broker cannot be made to show: an answer lost after the broker acted on the request. Kafka's
// frames are read as they pass (a 4-byte size, then a request's API key and correlation id, or a response's
// correlation id), nothing else is looked at or changed.

/** Kafka's API keys this relay is asked about. */
export const API_KEY = { EndTxn: 26 } as const;

/**
 * Whether a request frame (size included) is an EndTxn that commits: its body ends with the `committed`
 * boolean, followed from version 3 on by an empty tagged-field buffer (one 0 byte, as every client sends it).
 */
export function isCommittingEndTxn(frame: Buffer): boolean {
  if (frame.readInt16BE(4) !== API_KEY.EndTxn) return false;
  const version = frame.readInt16BE(6);
  return frame[frame.length - (version >= 3 ? 2 : 1)] === 1;
}

export interface KafkaRelay {
  /** The address clients bootstrap with: the broker's advertised address for the relayed listener. */
  readonly address: string;
  /**
   * The broker's answer to the next request `chosen` picks (a request frame, size included) is not delivered:
   * when it arrives the relay stops (connections cut, new ones refused, as with a dead broker) and runs `then`
   * (e.g. kills the broker). Resolves once `then` has run.
   */
  loseNextAnswerTo(chosen: (request: Buffer) => boolean, then: () => Promise<void>): Promise<void>;
  /** Forgets an answer it was told to lose: from now on it relays everything. */
  disarm(): void;
  close(): Promise<void>;
}

/** Cuts a byte stream into Kafka frames (4-byte big-endian size, then the frame), each given whole. */
function frames(onFrame: (frame: Buffer) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
      const size = pending.readInt32BE(0);
      onFrame(pending.subarray(0, 4 + size));
      pending = pending.subarray(4 + size);
    }
  };
}

export async function startKafkaRelay(listenPort: number, brokerPort: number, host = '127.0.0.1'): Promise<KafkaRelay> {
  const pairs = new Set<{ client: Socket; broker: Socket }>();
  let armed: { chosen: (request: Buffer) => boolean; lost: () => void } | undefined;

  const cutAll = () => {
    for (const { client, broker } of pairs) {
      client.destroy();
      broker.destroy();
    }
    pairs.clear();
  };

  const server: Server = createServer((client) => {
    const broker = connect(brokerPort, host);
    const pair = { client, broker };
    pairs.add(pair);
    /** Correlation ids of this connection's requests whose answers are to be lost. */
    const doomed = new Set<number>();
    client.on(
      'data',
      frames((frame) => {
        // request header: size, api key (int16), api version (int16), correlation id (int32)
        if (armed?.chosen(frame)) doomed.add(frame.readInt32BE(8));
        broker.write(frame);
      }),
    );
    broker.on(
      'data',
      frames((frame) => {
        // response header: size, correlation id (int32)
        if (armed && doomed.has(frame.readInt32BE(4))) {
          const { lost } = armed;
          armed = undefined;
          server.close(); // as a dead broker: connections refused from now on
          cutAll();
          lost();
          return;
        }
        client.write(frame);
      }),
    );
    const close = () => {
      client.destroy();
      broker.destroy();
      pairs.delete(pair);
    };
    client.on('error', close).on('close', close);
    broker.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(listenPort, host, () => resolve()));

  return {
    address: `${host}:${listenPort}`,
    loseNextAnswerTo: (chosen, then) => new Promise((resolve, reject) => (armed = { chosen, lost: () => void then().then(resolve, reject) })),
    disarm: () => void (armed = undefined),
    close: async () => {
      cutAll();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
