/** Starts `server` listening; resolves with the port bound (the one asked for, or the one chosen for port 0). */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
