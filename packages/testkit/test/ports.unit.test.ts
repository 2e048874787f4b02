import { connect, createServer, type AddressInfo } from 'node:net';
import { expect } from 'chai';
import { reservedPort } from '../src';

const refusal = (port: number) =>
  new Promise<string | undefined>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code));
  });

const listenOn = (port: number) =>
  new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });

describe('testkit: reservedPort', () => {
  it('gives a port nothing listens on, that a server can then bind by number', async () => {
    const port = await reservedPort();
    expect(await refusal(port)).to.equal('ECONNREFUSED');
    const server = await listenOn(port);
    expect((server.address() as AddressInfo).port).to.equal(port);
    await new Promise((resolve) => server.close(resolve));
  });

  it('is not handed out again by the kernel while it waits for its listener', async () => {
    const port = await reservedPort();
    for (let i = 0; i < 500; i += 1) {
      const other = await listenOn(0);
      expect((other.address() as AddressInfo).port).to.not.equal(port);
      await new Promise((resolve) => other.close(resolve));
    }
  });
});
