/**
 * The log's side of C2SP tlog-witness (shared/read-model/transparency/witness-client.ts; docs/audit.md, "Witnesses"): from an old
 * size the witness does not hold, its 409 names the size it does and the request goes once more from there, with
 * the consistency proof from that size; a witness holding a larger tree is not asked again; only a cosignature by the
 * witness's configured key is taken; an answer that is too large, or a witness that does not answer in time, is a
 * failure, never a hang.
 */
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createLogger } from '../../../shared/logging/logger.ts';
import { checkpointBody } from '../../../shared/read-model/transparency/checkpoint.ts';
import { cosign, cosignerKey, parseCosignerKey } from '../../../shared/read-model/transparency/cosignature.ts';
import { MemoryTree } from '../../../shared/read-model/transparency/memory-tree.ts';
import { parseNote, parseVerifierKey, signNote, verifierKey } from '../../../shared/read-model/transparency/signed-note.ts';
import { parseWitnessEndpoint, requestCosignature, type WitnessEndpoint } from '../../../shared/read-model/transparency/witness-client.ts';
import { Witness, type WitnessedTree } from '../../../services/witness/witness.ts';
import { witnessApp } from '../../../services/witness/witness-app.ts';

const ORIGIN = 'watch.example/watchcat/events';

describe('witness client: a log asking a witness to cosign', () => {
  const logKey = generateKeyPairSync('ed25519').privateKey;
  const tree = new MemoryTree();
  for (let i = 0; i < 12; i += 1) tree.append(`entry-${i}`);
  const noteOf = (size: number) => signNote(checkpointBody({ origin: ORIGIN, size, root: tree.root(size) }), ORIGIN, logKey);
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
  const serve = async (listener: RequestListener): Promise<string> => {
    const server = createServer(listener).listen(0, '127.0.0.1');
    servers.push(server);
    await once(server, 'listening');
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const witnessHolding = async (size: number): Promise<{ endpoint: WitnessEndpoint }> => {
    const trees = new Map<string, WitnessedTree>(size > 0 ? [[ORIGIN, { size, root: Buffer.from(tree.root(size)).toString('base64'), note: '' }]] : []);
    const witness = new Witness({
      name: 'witness.example/w1', key: generateKeyPairSync('ed25519').privateKey, logs: [parseVerifierKey(verifierKey(ORIGIN, logKey))],
      store: { get: (origin) => trees.get(origin), put: async (origin, held) => { trees.set(origin, held); } },
    });
    const url = await serve(witnessApp(witness, createLogger('silent', 'witness')).callback());
    return { endpoint: { url, verifier: parseCosignerKey(witness.verifierKey) } };
  };
  const ask = (endpoint: WitnessEndpoint, size: number, oldSize: number, asked: Array<[number, number]> = [], timeoutMs = 5_000) =>
    requestCosignature(endpoint, {
      note: noteOf(size), size, oldSize, timeoutMs,
      proofOf: async (from, to) => { asked.push([from, to]); return tree.consistency(from, to); },
    });

  it('goes once more from the size a 409 names, with the proof from that size, and is cosigned', async () => {
    const { endpoint } = await witnessHolding(5);
    const asked: Array<[number, number]> = [];
    const outcome = await ask(endpoint, 12, 0, asked);
    expect(outcome).to.include({ cosigned: true });
    expect(asked).to.deep.equal([[5, 12]]);
  });

  it('does not ask again a witness that holds a larger tree, and says the size it holds', async () => {
    const { endpoint } = await witnessHolding(12);
    const asked: Array<[number, number]> = [];
    expect(await ask(endpoint, 8, 0, asked)).to.deep.include({ cosigned: false, status: 409, held: 12 });
    expect(asked).to.deep.equal([]);
  });

  it('takes no cosignature but one by the witness\'s configured key', async () => {
    const configured = parseCosignerKey(cosignerKey('witness.example/w1', generateKeyPairSync('ed25519').privateKey));
    const impostor = generateKeyPairSync('ed25519').privateKey;
    const body = checkpointBody({ origin: ORIGIN, size: 3, root: tree.root(3) });
    const url = await serve((request, response) => { request.resume(); response.end(cosign(body, 'witness.example/w1', impostor, 1_700_000_000)); });
    expect(await ask({ url, verifier: configured }, 3, 0)).to.deep.include({ cosigned: false, status: 200, reason: 'no cosignature by its key verifies' });
  });

  it('checks a cosignature over the note\'s text cut at its last blank line, where the witness and Go\'s note.Open cut it', async () => {
    const witnessKey = generateKeyPairSync('ed25519').privateKey;
    const verifier = parseCosignerKey(cosignerKey('witness.example/w1', witnessKey));
    const text = `${checkpointBody({ origin: ORIGIN, size: 3, root: tree.root(3) })}\nafter a blank line\n`;
    // A witness that cosigns the text of the note it is sent, as it reads it.
    const url = await serve(async (request, response) => {
      let body = '';
      for await (const chunk of request) body += chunk;
      response.end(cosign(parseNote(body.slice(body.indexOf('\n\n') + 2)).text, 'witness.example/w1', witnessKey, 1_700_000_000));
    });
    const outcome = await requestCosignature({ url, verifier }, { note: signNote(text, ORIGIN, logKey), size: 3, oldSize: 0, timeoutMs: 5_000, proofOf: async () => [] });
    expect(outcome).to.include({ cosigned: true, time: 1_700_000_000 });
  });

  it('fails, without hanging, on an answer larger than 64 KiB and on a witness that does not answer in time', async () => {
    const flood = await serve((request, response) => { request.resume(); response.end('\u2014 x '.padEnd(200_000, 'A')); });
    const mute = await serve(() => undefined);
    const verifier = (await witnessHolding(0)).endpoint.verifier;
    expect(await ask({ url: flood, verifier }, 3, 0)).to.deep.include({ cosigned: false, reason: 'an answer larger than 65536 bytes' });
    const started = performance.now();
    expect(await ask({ url: mute, verifier }, 3, 0, [], 300)).to.include({ cosigned: false });
    expect(performance.now() - started).to.be.below(3_000);
  });

  it('reads a TRANSPARENCY_WITNESSES entry as a URL and a witness\'s verifier key', () => {
    const vkey = cosignerKey('witness.example/w9', generateKeyPairSync('ed25519').privateKey);
    expect(parseWitnessEndpoint(` http://127.0.0.1:7380/ ${vkey} `)).to.deep.include({ url: 'http://127.0.0.1:7380' });
    expect(() => parseWitnessEndpoint(vkey)).to.throw(/expected "<http\(s\) URL> <verifier key>"/);
  });
});
