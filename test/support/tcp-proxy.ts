// A TCP proxy of the test's own (node:net) in front of a server (Redis, a broker's relayed listener), for
// network faults between a worker and it: every chunk delayed, everything black-holed (a partition: connections stay open, nothing passes), or
// every connection cut at once.
import { createServer, connect, type Server, type Socket } from 'node:net';

export class TcpProxy {
  /** Each chunk, either way, waits this long (and never overtakes one before it). */
  delayMs = 0;
  /** Chunks are dropped, either way, while set. */
  blackhole = false;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
    /** Where new connections go (a failover points it at another server, then cuts the open ones). */
    public target: { host: string; port: number },
  ) {}

  /** `listenPort`: where it listens (a free one when not given), e.g. the port a broker's relayed listener advertises. */
  static async start(target: { host: string; port: number }, listenPort = 0): Promise<TcpProxy> {
    let proxy: TcpProxy | undefined;
    const server = createServer((client) => proxy!.relay(client, proxy!.target));
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(listenPort, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy: no port');
    proxy = new TcpProxy(server, address.port, target);
    return proxy;
  }

  private relay(client: Socket, target: { host: string; port: number }): void {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
      socket.on('error', () => undefined); // the close that follows ends both sides
    }
    // Each direction a FIFO: a chunk leaves once due and never before one ahead of it (TCP keeps a stream's
    // order), also when the delay changes: a chunk after the fault's end waits for the delayed ones.
    const forward = (to: Socket) => {
      const waiting: { chunk: Buffer; due: number }[] = [];
      let timer: NodeJS.Timeout | undefined;
      const pump = () => {
        timer = undefined;
        while (waiting.length > 0 && waiting[0].due <= Date.now()) {
          const { chunk } = waiting.shift()!;
          if (!to.destroyed) to.write(chunk);
        }
        if (waiting.length > 0) timer = setTimeout(pump, waiting[0].due - Date.now());
      };
      return (chunk: Buffer) => {
        if (this.blackhole) return;
        waiting.push({ chunk, due: Date.now() + this.delayMs });
        if (timer === undefined) pump();
      };
    };
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
  }

  /** Cuts every open connection (new ones are taken). */
  cut(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
