/**
 * Witnesses of ours (services/witness/witness.ts) served over HTTP on loopback in this process, for tests of the log's
 * side of C2SP tlog-witness (read-api/transparency/witness-cosigning.ts): each counts the requests it is sent, and
 * may be served again on the port it had (a witness back after it was down).
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../../shared/logging/logger.ts';
import { parseCosignerKey } from '../../shared/read-model/transparency/cosignature.ts';
import { parseVerifierKey, verifierKey } from '../../shared/read-model/transparency/signed-note.ts';
import type { WitnessEndpoint } from '../../shared/read-model/transparency/witness-client.ts';
import { Witness, type WitnessedTree } from '../../services/witness/witness.ts';
import { witnessApp } from '../../services/witness/witness-app.ts';

/** The witnesses of the log of `origin` signed by `logKey`, and the servers they and the tests listen with. */
export function witnessServers(origin: string, logKey: KeyObject) {
  const servers: Server[] = [];
  /** Listens with `server` on loopback (`port`, 0: any); its base URL. Closed by `close()`. */
  const listening = async (server: Server, port = 0): Promise<string> => {
    servers.push(server);
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  /**
   * A witness served on demand; `holding`: a tree it holds already. `asked()` counts the requests it was sent;
   * `before` is awaited before each is answered (a witness slow to answer).
   */
  const witness = (name: string, holding?: WitnessedTree) => {
    const trees = new Map<string, WitnessedTree>(holding ? [[origin, holding]] : []);
    const own = new Witness({
      name, key: generateKeyPairSync('ed25519').privateKey, logs: [parseVerifierKey(verifierKey(origin, logKey))],
      store: { get: (held) => trees.get(held), put: async (held, tree) => { trees.set(held, tree); } },
    });
    const verifier = parseCosignerKey(own.verifierKey);
    let asked = 0;
    const serve = async (port = 0, before = async () => undefined as void): Promise<WitnessEndpoint> => {
      const answer = witnessApp(own, createLogger('silent', 'witness')).callback();
      const server = createServer((request, response) => {
        asked += 1;
        void before().then(() => answer(request, response));
      });
      return { url: await listening(server, port), verifier };
    };
    return { verifier, verifierKey: own.verifierKey, serve, asked: () => asked };
  };
  /** Stops listening with every server (one closed already is left as it is). */
  const close = async (): Promise<void> => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  };
  return { listening, witness, close };
}
