/** Starts `server` listening; resolves with the port bound (the one asked for, or the one chosen for port 0). */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The port a setting names cannot be had: another process holds it, or this one may not bind it. */
export class PortUnavailable extends Error {
  constructor(readonly setting: string, readonly port: number, host: string, code: string) {
    super(code === 'EADDRINUSE'
      ? `${setting}=${port}: the port is already in use on ${host} (another process listens there); stop it or set ${setting} to a free port`
      : `${setting}=${port}: this process may not listen on that port on ${host} (${code}); set ${setting} to another port`);
    this.name = 'PortUnavailable';
  }
}

/** `setting`: the configuration setting that chose `port`, named when the port cannot be had. */
export function listen(server: Server, port: number, host: string, setting: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      const code = error.code ?? '';
      reject(code === 'EADDRINUSE' || code === 'EACCES' ? new PortUnavailable(setting, port, host, code) : error);
    };
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
