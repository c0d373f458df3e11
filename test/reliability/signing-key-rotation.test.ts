/**
 * Key rotation with several replicas, as README.md ("Signed answers") tells it (issue 21, item 4): two API
 * processes (real child processes of the whole service, `main.ts`, each on its own embedded store: the read API alone
 * needs a MongoDB, and the keys are what is tested here) sign with one key and one history; they are restarted one
 * after the other, first to publish the next key, then to sign with it and retire the old one, while a client keeps
 * asking both for signed answers and keeps every receipt. Every receipt verifies against every key set either
 * process served from the first step on, those of the replica still on the old key while the other had switched
 * included.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { parseSavedResponse } from '../../services/audit/receipt/saved-response.ts';
import { verifyReceipt } from '../../services/audit/receipt/verify-receipt.ts';
import type { JwkSet } from '../../shared/signing/jwk-set.ts';
import { rawExchange } from '../support/raw-http.ts';
import { freePort } from '../support/redis-server.ts';
import { historyEntry, newSigningKeyPem } from '../support/signing-keys.ts';
import { thumbprintByHand } from '../support/rfc9421-by-hand.ts';
import { startWatchcatProcess, type WatchcatProcess } from '../support/watchcat-process.ts';

interface Replica {
  name: string;
  /** Chosen at its first start (`restart`), kept across restarts. */
  ports?: { port: number; opsPort: number; adminPort: number };
  process?: WatchcatProcess;
}

interface Receipt {
  raw: Buffer;
  from: string;
  keyid: string;
  created: number;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
const ASK = 'sig1=("@status" "content-digest");alg="ed25519"';

describe('signing key rotation across two API processes', function () {
  // Six starts of a TypeScript entry point on a shared machine.
  this.timeout(180_000);
  let dir: string;
  const replicas: Replica[] = [];
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rotation-'));
    for (const name of ['api-a', 'api-b']) replicas.push({ name });
  });
  after(async () => {
    await Promise.all(replicas.map((replica) => replica.process?.stop()));
    await rm(dir, { recursive: true, force: true });
  });

  async function restart(replica: Replica, key: string, history: object[]): Promise<void> {
    await replica.process?.stop();
    replica.process = undefined;
    // Chosen once the replica started before it took its own: a port found free is only free until a process binds
    // it, and a starting process binds some (api-b's ops port, chosen before api-a started, was once found taken).
    const { port, opsPort, adminPort } = replica.ports ??= { port: await freePort(), opsPort: await freePort(), adminPort: await freePort() };
    const started = startWatchcatProcess(replica.name, 'main.ts', {
      PORT: String(port), OPS_PORT: String(opsPort), ADMIN_PORT: String(adminPort), SEED_DEMO: 'false',
      HOST: '127.0.0.1', OPS_HOST: '127.0.0.1', DATA_DIR: join(dir, replica.name), EVENTSTORE_URL: '', MONGODB_URL: '', REDIS_URL: '',
      LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '1000000', VERIFY_RATE_LIMIT_PER_MINUTE: '1000000', VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE: '1000000',
      RESPONSE_SIGNING_KEY: key, RESPONSE_SIGNING_KEYS: JSON.stringify({ keys: history }),
    });
    await started.waitForLine(/read API listening/, 60_000);
    replica.process = started;
  }

  const url = (replica: Replica) => `http://127.0.0.1:${replica.ports!.port}`;
  const keySet = async (replica: Replica) => (await (await fetch(`${url(replica)}/.well-known/jwks.json`)).json()) as JwkSet;

  it('keeps every receipt verifiable while the replicas publish the next key, then switch to it one after the other', async () => {
    const [oldKey, newKey] = [newSigningKeyPem(), newSigningKeyPem()];
    const oldSince = nowSeconds() - 3600;
    for (const replica of replicas) await restart(replica, oldKey, [historyEntry(oldKey, { nbf: oldSince })]);

    const receipts: Receipt[] = [];
    let asking = true;
    let misses = 0;
    const client = (async () => {
      for (let turn = 0; asking; turn += 1) {
        const replica = replicas[turn % replicas.length]!;
        if (replica.process === undefined) {
          await sleep(20);
          continue;
        }
        const answer = await rawExchange(url(replica), `GET /api/public/status HTTP/1.1\r\nHost: watchcat.example\r\nAccept-Signature: ${ASK}\r\nConnection: close\r\n\r\n`)
          .catch(() => undefined);
        // A replica between SIGTERM and its restart refuses connections: the client moves on, as behind a proxy.
        if (answer?.status !== 200) {
          misses += 1;
          continue;
        }
        const input = String(answer.headers['signature-input']);
        receipts.push({
          raw: answer.raw, from: replica.name,
          keyid: /;keyid="([^"]+)"/.exec(input)?.[1] ?? '', created: Number(/;created=(\d+)/.exec(input)?.[1]),
        });
        await sleep(50);
      }
    })();

    const served: JwkSet[] = [];
    try {
      // Step 1: publish the next key, with the time it will begin signing, on every replica; all still sign with the old one.
      const switchAt = nowSeconds() + 2;
      const published = [historyEntry(oldKey, { nbf: oldSince }), historyEntry(newKey, { nbf: switchAt })];
      for (const replica of replicas) await restart(replica, oldKey, published);
      for (const replica of replicas) served.push(await keySet(replica));
      // Step 2: sign with the next key, the old one retired at the time by which every replica will have switched.
      const rolloutEnds = nowSeconds() + 120;
      const switched = [historyEntry(oldKey, { nbf: oldSince, exp: rolloutEnds }), historyEntry(newKey, { nbf: switchAt })];
      await restart(replicas[0]!, newKey, switched);
      // The other replica still signs with the old key for a while, as a rolling restart leaves it.
      const receiptsBefore = receipts.length;
      while (receipts.slice(receiptsBefore).filter((r) => r.from === replicas[1]!.name).length < 3) await sleep(20);
      await restart(replicas[1]!, newKey, switched);
      for (const replica of replicas) served.push(await keySet(replica));
      const count = receipts.length;
      while (receipts.length < count + 4) await sleep(20);
    } finally {
      asking = false;
      await client;
    }

    const [oldKid, newKid] = [oldKey, newKey].map((pem) => thumbprintByHand(historyEntry(pem, { nbf: 0 }).x));
    const switchedAt = Math.min(...receipts.filter((r) => r.keyid === newKid).map((r) => r.created));
    expect(receipts.filter((r) => r.keyid === newKid), 'receipts signed with the new key').to.have.length.above(0);
    expect(receipts.filter((r) => r.keyid === oldKid && r.created >= switchedAt), 'old-key receipts made after a replica had switched').to.have.length.above(0);
    console.log(`      ${receipts.length} receipts (${receipts.filter((r) => r.keyid === oldKid).length} old key, ${receipts.filter((r) => r.keyid === newKid).length} new key), ${misses} requests refused during restarts, checked against ${served.length} key sets`);
    for (const jwks of served) {
      for (const receipt of receipts) {
        const report = await verifyReceipt(parseSavedResponse(receipt.raw), jwks);
        expect(report.problems, `${receipt.from} ${receipt.keyid} at ${receipt.created}`).to.deep.equal([]);
      }
    }
  });
});
