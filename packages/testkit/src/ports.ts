/**
 * A port for a listener that does not exist yet, handed out by the kernel (listen on port 0 and read the
 * port back), never guessed and checked.
 */
import { connect, createServer, type AddressInfo } from 'node:net';

/**
 * A loopback port nothing listens on, kept out of other hands for a minute: for a port that must be known
 * before its listener exists (a child process's PORT, the gateway address every service is configured
 * with, a server a test starts later) and for tests of a refused connection.
 *
 * The kernel picks it (listen on port 0). Before that listener closes, it accepts one connection to itself
 * and closes it first, which leaves the accepting side in TIME_WAIT for 60 s (Linux). While that socket
 * holds the port the kernel gives it to no outgoing connection and to no other `listen(0)`, yet a server
 * that binds it by number may (Node sets SO_REUSEADDR); connections to it are refused, as to any closed
 * port. A plain listen-then-close would leave the port free for the next outgoing connection to take.
 */
export async function reservedPort(): Promise<number> {
  const server = createServer((accepted) => accepted.end());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve, reject) => {
    // The client answers the server's FIN with its own (allowHalfOpen is off), so the server side is the
    // one left in TIME_WAIT.
    const client = connect(port, '127.0.0.1');
    client.once('error', reject);
    client.once('close', () => resolve());
    client.resume();
  });
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
