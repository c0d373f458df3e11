/**
 * `watchcat witness` stopped by SIGTERM (services/witness/witness.command.ts) while it stores a tree: it takes no new
 * request, answers the one being stored once the state is on disk, and only then lets go of its state's lock. Let
 * go sooner, a next witness could take the state while this one's write is still under way, and the log would lose
 * a cosignature the state holds. Run in-process, the state's write held back by a stub of `fs.promises.open`.
 */
import fs, { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { MemoryTree } from '../../shared/read-model/transparency/memory-tree.ts';
import { ORIGIN, runWitness, submitTree } from '../support/in-process-witness.ts';

describe('witness: stopped while it stores a tree', function () {
  this.timeout(20_000);
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'watchcat-witness-stop-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('takes no new request, answers the one being stored, and lets go of the lock only after', async () => {
    const logKey = generateKeyPairSync('ed25519').privateKey;
    const state = join(dir, 'state.json');
    const witness = runWitness(dir, ['--key', join(dir, 'key.pem'), '--state', state], logKey);
    const url = await witness.url();
    const open = fs.promises.open;
    let writing!: () => void;
    const written = new Promise<void>((resolve) => { writing = resolve; });
    let letWrite!: () => void;
    const held = new Promise<void>((resolve) => { letWrite = resolve; });
    // The state's temporary file opens only when the test lets it: the write is then in progress.
    fs.promises.open = (async (path: fs.PathLike, ...rest: unknown[]) => {
      if (String(path).endsWith('.tmp')) {
        writing();
        await held;
      }
      return (open as (...args: unknown[]) => Promise<fs.promises.FileHandle>)(path, ...rest);
    }) as typeof fs.promises.open;
    syncBuiltinESMExports();
    try {
      const tree = new MemoryTree();
      for (let i = 0; i < 8; i += 1) tree.append(`a-${i}`);
      const answer = submitTree(url, logKey, tree).then(async (response) => `${response.status} ${await response.text()}`, (error: Error) => `failed: ${error.message}`);
      await written;
      const stopped = witness.stop();
      // The shutdown before the fix let go of the lock within milliseconds, the write still held.
      await sleep(300);
      expect(existsSync(`${state}.lock`), 'the lock is held while the write is in progress').to.equal(true);
      expect(await fetch(`${url}/add-checkpoint`, { method: 'POST', body: 'old 0\n\n' }).then((response) => response.status, () => 'refused'), 'a new request').to.equal('refused');
      letWrite();
      expect(await answer).to.match(/^200 \u2014 witness\.example\/w1 \S+\n$/);
      expect(await stopped).to.equal(0);
      expect(existsSync(`${state}.lock`), 'let go at the end').to.equal(false);
      expect((JSON.parse(readFileSync(state, 'utf8')) as { logs: Record<string, { size: number }> }).logs[ORIGIN]?.size).to.equal(8);
    } finally {
      letWrite();
      fs.promises.open = open;
      syncBuiltinESMExports();
    }
  });
});
