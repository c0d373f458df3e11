import type { Server } from 'node:http';

/** Listens on a free loopback port and answers the server's base URL. */
export function listenOnLoopback(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') reject(new Error('no TCP address'));
      else resolve(`http://127.0.0.1:${address.port}`);
    });
  });
}
