/**
 * One witness per state file (services/witness/witness-state-file.ts): two witnesses on one state would each keep a
 * tree of their own in memory and cosign a fork under one key. The lock beside the state is taken over only when it
 * is known stale: written on this host by a process that is gone, or by an earlier process of this very pid (a
 * restarted container, pid 1 again); never one another host wrote, never one this process holds, and of two
 * processes taking over one stale lock only one gets it.
 */
import fs, { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import { checkpointBody } from '../../shared/read-model/transparency/checkpoint.ts';
import { MemoryTree } from '../../shared/read-model/transparency/memory-tree.ts';
import { parseVerifierKey, signNote } from '../../shared/read-model/transparency/signed-note.ts';
import { Witness, type WitnessStore } from '../../services/witness/witness.ts';
import { openWitnessState } from '../../services/witness/witness-state-file.ts';
import { specVerifierKey } from '../support/note-keys.ts';

/** A pid no process holds here. */
const GONE = 2 ** 22 + 12_345;
/** A key generated just now, so its state may start empty. */
const OWNER = { key: generateKeyPairSync('ed25519').privateKey, newState: 'allowed' } as const;

describe('the witness state\'s lock', () => {
  let dir: string;
  let file: string;
  let lock: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'watchcat-witness-lock-'));
    file = join(dir, 'state.json');
    lock = `${file}.lock`;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const refusal = (opening: Promise<unknown>) => opening.then(() => undefined, (error: Error) => error.message);

  it('refuses a second open by the process that holds it, and opens again once it is let go', async () => {
    const first = await openWitnessState(file, OWNER);
    expect(await refusal(openWitnessState(file, OWNER))).to.match(/another witness \(process \d+\) uses this state/);
    await first.close();
    await (await openWitnessState(file, OWNER)).close();
  });

  it('never takes over a lock written on another host, whatever its pid', async () => {
    for (const pid of [process.pid, 1, GONE]) {
      writeFileSync(lock, `${JSON.stringify({ pid, host: `${hostname()}-elsewhere`, instance: 'x' })}\n`);
      const why = await refusal(openWitnessState(file, OWNER));
      expect(why, `pid ${pid}`).to.match(/another witness \(process \d+\) uses this state, on host .*-elsewhere/);
      expect(readFileSync(lock, 'utf8')).to.contain('-elsewhere');
    }
  });

  it('takes over a lock of this host whose process is gone, one of this pid it does not hold (an earlier process of it), and an earlier version\'s', async () => {
    for (const text of [
      `${JSON.stringify({ pid: GONE, host: hostname(), instance: 'x' })}\n`,
      `${JSON.stringify({ pid: process.pid, host: hostname(), instance: 'earlier' })}\n`,
      `${GONE}\n`,
    ]) {
      writeFileSync(lock, text);
      const state = await openWitnessState(file, OWNER);
      expect(JSON.parse(readFileSync(lock, 'utf8'))).to.include({ pid: process.pid, host: hostname() });
      await state.close();
      expect(existsSync(lock), 'let go at close').to.equal(false);
    }
  });

  it('refuses a lock whose holder has not written it yet, and one of a live process of this host', async () => {
    writeFileSync(lock, '');
    expect(await refusal(openWitnessState(file, OWNER))).to.match(/another witness/);
    writeFileSync(lock, `${JSON.stringify({ pid: process.ppid, host: hostname(), instance: 'x' })}\n`);
    expect(await refusal(openWitnessState(file, OWNER))).to.match(new RegExp(`another witness \\(process ${process.ppid}\\) uses this state`));
  });

  it('leaves at close a lock another witness holds since', async () => {
    const state = await openWitnessState(file, OWNER);
    const other = `${JSON.stringify({ pid: process.ppid, host: hostname(), instance: 'other' })}\n`;
    writeFileSync(lock, other);
    await state.close();
    expect(readFileSync(lock, 'utf8')).to.equal(other);
  });

  it('of two processes taking over one stale lock, lets only one hold it', async () => {
    writeFileSync(lock, `${JSON.stringify({ pid: GONE, host: hostname(), instance: 'x' })}\n`);
    const rival = `${JSON.stringify({ pid: process.ppid, host: hostname(), instance: 'rival' })}\n`;
    // The rival, a live process of this host, moves the stale lock away and takes it just after this process read it.
    const read = fs.readFileSync;
    let raced = false;
    (fs as { readFileSync: unknown }).readFileSync = ((path: fs.PathOrFileDescriptor, ...rest: unknown[]) => {
      const text = (read as (...args: unknown[]) => unknown)(path, ...rest);
      if (path === lock && !raced) {
        raced = true;
        fs.unlinkSync(lock);
        writeFileSync(lock, rival, { flag: 'wx' });
      }
      return text;
    }) as typeof fs.readFileSync;
    syncBuiltinESMExports();
    let why: string | undefined;
    try {
      why = await refusal(openWitnessState(file, OWNER));
    } finally {
      (fs as { readFileSync: unknown }).readFileSync = read;
      syncBuiltinESMExports();
    }
    expect(raced).to.equal(true);
    expect(why, 'this process must not hold it too').to.match(new RegExp(`another witness \\(process ${process.ppid}\\)`));
    expect(readFileSync(lock, 'utf8'), 'the rival still holds it').to.equal(rival);
  });

  it('writes through a temporary file of its own holder, and removes those earlier holders left', async () => {
    // A temporary shared by every holder could be truncated by the next holder while one whose lock was taken over
    // still writes it, and renamed half written by the next one.
    const leftovers = [`${file}.tmp`, `${file}.0b9e2d6c-0000-4000-8000-000000000000.tmp`];
    for (const leftover of leftovers) writeFileSync(leftover, '{"logs": {"half');
    const state = await openWitnessState(file, OWNER);
    try {
      for (const leftover of leftovers) expect(existsSync(leftover), leftover).to.equal(false);
      const renames: string[] = [];
      const rename = fs.renameSync;
      fs.renameSync = (from, to) => { renames.push(String(from)); rename(from, to); };
      syncBuiltinESMExports();
      try {
        await state.put('watch.example/log', { size: 1, root: Buffer.alloc(32).toString('base64'), note: 'a note' });
      } finally {
        fs.renameSync = rename;
        syncBuiltinESMExports();
      }
      expect(renames).to.have.length(1);
      expect(renames[0]).to.match(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.[0-9a-f-]{36}\\.tmp$`));
    } finally {
      await state.close();
    }
  });

  it('lets go of the lock at close only once the write in progress is on disk, and stores nothing after', async () => {
    // Let go while the state is written, the lock could go to a next witness that reads the state without that tree.
    const state = await openWitnessState(file, OWNER);
    const tree = { size: 3, root: Buffer.alloc(32, 7).toString('base64'), note: 'a note' };
    const writing = state.put('watch.example/log', tree).then(() => 'stored', (error: Error) => error.message);
    const closing = state.close();
    expect(existsSync(lock), 'held while the write is in progress').to.equal(true);
    expect(await writing).to.equal('stored');
    await closing;
    expect(existsSync(lock), 'let go once it is done').to.equal(false);
    expect((JSON.parse(readFileSync(file, 'utf8')) as { logs: Record<string, unknown> }).logs['watch.example/log']).to.deep.equal(tree);
    expect(await state.put('watch.example/log', { ...tree, size: 4 }).then(() => 'stored', (error: Error) => error.message)).to.match(/stopping/);
  });

  it('lets a witness whose lock another took over cosign nothing more: no two trees of one size under its key', async () => {
    // A second copy of the module is another process of this very pid on a host of this name, as two containers
    // sharing the host's hostname (host networking) each run as pid 1: it takes the lock over as an earlier process's.
    const other = (await import(`../../services/witness/witness-state-file.ts?rival=${Date.now()}`)) as { openWitnessState: typeof openWitnessState };
    const first = await openWitnessState(file, OWNER);
    const second = await other.openWitnessState(file, OWNER);
    const logKey = generateKeyPairSync('ed25519').privateKey;
    const origin = 'watch.example/watchcat/events';
    const witnessOn = (store: WitnessStore) => new Witness({ name: 'witness.example/w1', key: OWNER.key, logs: [parseVerifierKey(specVerifierKey(origin, logKey))], store });
    const treeOf = (tag: string) => {
      const tree = new MemoryTree();
      for (let i = 0; i < 8; i += 1) tree.append(`${tag}-${i}`);
      return tree;
    };
    const addTree = (witness: Witness, tree: MemoryTree) =>
      witness.addCheckpoint(`old 0\n\n${signNote(checkpointBody({ origin, size: 8, root: tree.root() }), origin, logKey)}`)
        .then((answer) => answer.status, () => 'failed');
    const [a, b] = [treeOf('a'), treeOf('b')];
    try {
      const answers = [await addTree(witnessOn(first), a), await addTree(witnessOn(second), b)];
      expect(answers, 'one witness key, two trees of 8 leaves').not.to.deep.equal([200, 200]);
      expect(answers[1], 'the one holding the lock').to.equal(200);
      // What a restart would hold: the tree the witness holding the lock cosigned.
      const kept = (JSON.parse(readFileSync(file, 'utf8')) as { logs: Record<string, { root: string }> }).logs[origin];
      expect(kept?.root).to.equal(Buffer.from(b.root()).toString('base64'));
    } finally {
      await second.close();
      await first.close();
    }
  });
});
