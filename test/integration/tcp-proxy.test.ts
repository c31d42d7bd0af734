import { createServer, connect, type Server } from 'node:net';
import { TcpProxy } from '../support/tcp-proxy';

// The nemesis's network faults go through this proxy: it may delay a stream, never reorder it. A chunk
// written after a delay ends must not overtake the chunks still delayed (a Redis or Kafka connection would
// read the bytes out of order: the nemesis saw replies answered INTERNAL so).
describe('TcpProxy (real sockets)', () => {
  let server: Server;
  let received = '';
  let proxy: TcpProxy;

  beforeAll(async () => {
    server = createServer((socket) => socket.on('data', (chunk) => (received += chunk.toString())));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = await TcpProxy.start({ host: '127.0.0.1', port: (server.address() as { port: number }).port });
  });
  afterAll(async () => {
    await proxy.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('keeps a stream in order when its delay ends while chunks are still delayed', async () => {
    const client = connect(proxy.port, '127.0.0.1');
    await new Promise((resolve) => client.once('connect', resolve));
    proxy.delayMs = 300;
    client.write('first;');
    await new Promise((resolve) => setTimeout(resolve, 50));
    proxy.delayMs = 0;
    client.write('second;');
    await new Promise((resolve) => setTimeout(resolve, 600));
    client.destroy();
    expect(received).toBe('first;second;');
  });
});
