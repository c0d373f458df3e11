/**
 * `watchcat receipt verify FILE --checkpoint [FILE|URL]` (issue 32): the transparency checkpoint a receipt pins is
 * checked against a newer signed checkpoint by a consistency proof. Against the embedded service: a receipt kept
 * before the log grew holds against the latest checkpoint; a checkpoint signed with the log's own key over another
 * tree (a rewritten history) is named a fork, a smaller one a rollback.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPrivateKey } from 'node:crypto';
import { expect } from 'chai';
import { startWatchcat, type RunningWatchcat } from '../../all-in-one.ts';
import { createCliContext, type CliContext } from '../../services/cli/cli-context.ts';
import { run } from '../../services/cli/program.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { loadConfig } from '../../shared/config/config.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { checkpointBody } from '../../shared/read-model/transparency/checkpoint.ts';
import { signNote } from '../../shared/read-model/transparency/signed-note.ts';
import { logKeyFile } from '../../read-api/transparency/log-key.ts';
import { serialRegistered } from '../fixtures/events.ts';
import { keepReceipt } from '../support/kept-receipt.ts';
import { untilRegistryFresh } from '../support/registry-fresh.ts';

const ORIGIN = 'watch.example/watchcat/events';

/** The CLI in this process, configured for the local server on `port` (proofs come from there). */
async function watchcat(port: number, ...args: string[]): Promise<{ code: number; out: string[]; notes: string[] }> {
  const out: string[] = [];
  const notes: string[] = [];
  const context: CliContext = createCliContext({ LOG_LEVEL: 'silent', PORT: String(port) }, { out: (line) => out.push(line), note: (line) => notes.push(line) });
  const code = await run(['node', 'watchcat', ...args], context);
  return { code, out, notes };
}

describe('watchcat receipt verify --checkpoint: a receipt\'s checkpoint against a newer one', function () {
  this.timeout(60_000);
  let dataDir: string;
  let service: RunningWatchcat;
  let api: string;
  let receipt: string;
  let pinned: { size: number; root: string };

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'watchcat-receipt-checkpoint-'));
    service = await startWatchcat(
      loadConfig({
        DATA_DIR: dataDir, PORT: '0', OPS_PORT: '0', ADMIN_PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '100000',
        PUBLIC_BASE_URL: 'https://watch.example',
      }),
      createLogger('silent', 'receipt-checkpoint-test'),
    );
    api = `http://127.0.0.1:${service.ports.public}`;
    await untilRegistryFresh(api);
    // A receipt as a buyer keeps it (curl -si's bytes: status line, headers, blank line, body).
    receipt = join(dataDir, 'receipt.txt');
    const headers = await keepReceipt(`${api}/api/public/verify/AUR-0001`, receipt);
    const [size, root] = headers.get('watchcat-checkpoint')!.split(' ');
    pinned = { size: Number(size), root: root! };
    // The log grows after the receipt was kept.
    const events = openSqliteEventStore(join(dataDir, 'events.sqlite3'));
    await events.append('serial-RC-0001', [serialRegistered('RC-0001')], 'no_stream');
    await events.close();
    const started = Date.now();
    while (Number((await (await fetch(`${api}/.well-known/transparency/checkpoint`)).text()).split('\n')[1]) <= pinned.size) {
      if (Date.now() - started > 5_000) throw new Error('the log did not grow');
      await sleep(20);
    }
  });
  after(async () => {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const verify = (...extra: string[]) => watchcat(service.ports.public, 'receipt', 'verify', receipt, '--jwks', `${api}/.well-known/jwks.json`, ...extra);
  const logKey = async () => (await (await fetch(`${api}/.well-known/transparency/key`)).text()).trim();
  /** A checkpoint signed with the service's own log key over any tree: what a rewriter holding the key could sign. */
  const forged = (size: number, root: Buffer) => {
    const file = join(dataDir, `forged-${size}.note`);
    const key = createPrivateKey(readFileSync(logKeyFile(dataDir), 'utf8'));
    writeFileSync(file, signNote(checkpointBody({ origin: ORIGIN, size, root }), ORIGIN, key));
    return file;
  };

  it('holds against the service\'s latest checkpoint, which extends the tree the receipt pins by a consistency proof', async () => {
    const result = await verify('--checkpoint', `${api}/.well-known/transparency/checkpoint`, '--log-key', await logKey());
    expect(result.code, result.notes.join('\n')).to.equal(0);
    expect(result.out.at(-1)).to.equal(`checkpoint: the receipt's tree of ${pinned.size} leaves (root ${pinned.root}) is extended by ${ORIGIN}'s checkpoint of ${pinned.size + 1} leaves (${api}/.well-known/transparency/checkpoint)`);
  });

  it('names a fork for a newer checkpoint of another tree, and a rollback for a smaller one, though both are signed by the log\'s key', async () => {
    const fork = await verify('--checkpoint', forged(pinned.size + 1, Buffer.alloc(32, 7)), '--log-key', await logKey());
    expect(fork.code).to.equal(1);
    expect(fork.notes.join('\n')).to.contain(`fork: the tree of ${pinned.size + 1} leaves does not extend the tree of ${pinned.size} leaves (root ${pinned.root}) the receipt pins`);
    const sameSize = await verify('--checkpoint', forged(pinned.size, Buffer.alloc(32, 7)), '--log-key', await logKey());
    expect(sameSize.notes.join('\n')).to.contain(`fork: the receipt pins root ${pinned.root} for ${pinned.size} leaves`);
    const rollback = await verify('--checkpoint', forged(pinned.size - 1, Buffer.alloc(32, 7)), '--log-key', await logKey());
    expect(rollback.code).to.equal(1);
    expect(rollback.notes.join('\n')).to.contain(`the newer checkpoint holds ${pinned.size - 1} leaves, fewer than the ${pinned.size} the receipt pins`);
  });

  it('refuses a newer checkpoint the log\'s key did not sign', async () => {
    const other = 'watch.example/watchcat/events+00000000+AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    const result = await verify('--checkpoint', `${api}/.well-known/transparency/checkpoint`, '--log-key', other);
    expect(result.code).to.equal(1);
    expect(result.notes.join('\n')).to.contain('the newer checkpoint does not hold');
  });
});
