/**
 * The signers' record of the newest checkpoint they signed or served (read-api/transparency/checkpoint-file.ts), in a
 * DATA_DIR that several API processes may share: it never goes back, whatever order the saves come in and however
 * two processes' saves interleave, and a start (a new reader) finds the largest tree saved. Two real processes race
 * on one folder; the test reads the record all along.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as yieldToChildren } from 'node:timers/promises';
import { expect } from 'chai';
import { checkpointFile } from '../../../read-api/transparency/checkpoint-file.ts';
import { checkpointBody } from '../../../shared/read-model/transparency/checkpoint.ts';
import { signedCheckpointDoc } from '../../../shared/read-model/transparency/signed-checkpoints.ts';
import { signNote } from '../../../shared/read-model/transparency/signed-note.ts';
import { spawnTs } from '../../support/child-process.ts';

const CHILD = new URL('../../support/crash-children/checkpoint-record-child.ts', import.meta.url).pathname;
const ORIGIN = 'watch.example/watchcat/events';
const KEY = generateKeyPairSync('ed25519').privateKey;
const note = (size: number) => signNote(checkpointBody({ origin: ORIGIN, size, root: randomBytes(32), extensions: [] }), ORIGIN, KEY);
const sizeOf = (kept: string | undefined) => (kept === undefined ? undefined : signedCheckpointDoc(kept).size);

describe('transparency log: the record of the newest checkpoint signed or served, in DATA_DIR', function () {
  this.timeout(120_000);
  let dataDir: string;
  beforeEach(() => { dataDir = mkdtempSync(join(tmpdir(), 'watchcat-record-')); });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps the largest tree saved, a smaller one saved after it ignored, and a start finds it', () => {
    const record = checkpointFile(dataDir);
    expect(record.load(), 'nothing kept on a fresh machine').to.equal(undefined);
    const five = note(5);
    record.save(note(3));
    record.save(five);
    record.save(note(4));
    expect(record.load()).to.equal(five);
    expect(checkpointFile(dataDir).load(), 'after a restart').to.equal(five);
  });

  it('adds the signature lines a note of the checkpoint kept carries (witnesses\' cosignatures), one per signer, and nothing from another note of its size', () => {
    const record = checkpointFile(dataDir);
    const kept = note(5);
    // A line of witness `w` (its name and key id) over signature bytes `byte`: the record checks no signature, the
    // publisher does before it saves (log-publisher.ts).
    const line = (w: number, byte: number) =>
      `\u2014 witness.example/w${w} ${Buffer.concat([Buffer.alloc(4, w), Buffer.alloc(72, byte)]).toString('base64')}\n`;
    record.save(kept);
    record.save(`${kept}${line(1, 1)}`);
    record.save(`${kept}${line(2, 2)}`);
    expect(record.load(), 'both lines, the second process\'s after the first\'s').to.equal(`${kept}${line(1, 1)}${line(2, 2)}`);
    record.save(`${kept}${line(1, 3)}`);
    expect(checkpointFile(dataDir).load(), 'a later line of w1 in place of its earlier, after a restart').to.equal(`${kept}${line(2, 2)}${line(1, 3)}`);
    record.save(`${note(5)}${line(3, 4)}`);
    expect(record.load(), 'another checkpoint of 5 leaves: nothing of it').to.equal(`${kept}${line(2, 2)}${line(1, 3)}`);
  });

  it('takes in the file an earlier version kept, then removes it', () => {
    mkdirSync(join(dataDir, 'transparency'));
    writeFileSync(join(dataDir, 'transparency', 'checkpoint.note'), note(7));
    const record = checkpointFile(dataDir);
    expect(sizeOf(record.load())).to.equal(7);
    expect(readdirSync(join(dataDir, 'transparency')), 'taken in').to.deep.equal(['checkpoint.sqlite3']);
    record.save(note(6));
    expect(sizeOf(record.load()), 'a smaller tree').to.equal(7);
    record.save(note(8));
    expect(sizeOf(record.load())).to.equal(8);
  });

  it('never goes back while two processes sharing the folder save their checkpoints at once, and a start finds the largest', async () => {
    const last = 300;
    const goFile = join(dataDir, 'go');
    const children = [0, 1].map(() => spawnTs(CHILD, [dataDir, goFile, String(last)]));
    try {
      await Promise.all(children.map((child) => child.started));
      expect(children.map((child) => child.lines), 'both ready').to.deep.equal([['READY'], ['READY']]);
      writeFileSync(goFile, '');
      const seen: number[] = [];
      const record = checkpointFile(dataDir);
      let running = true;
      void Promise.all(children.map((child) => child.exited)).then(() => { running = false; });
      while (running) {
        const size = sizeOf(record.load());
        if (size !== undefined && size !== seen.at(-1)) seen.push(size);
        await yieldToChildren();
      }
      expect(children.map((child) => child.lines.at(-1)), children.flatMap((child) => child.lines).join('\n')).to.deep.equal(['DONE', 'DONE']);
      const backwards = seen.flatMap((size, i) => (i > 0 && size < seen[i - 1]! ? [`${seen[i - 1]} -> ${size}`] : []));
      expect(backwards, `the record went back (of ${seen.length} sizes read)`).to.deep.equal([]);
      expect(seen.length, 'read while they saved').to.be.greaterThan(2);
      expect(sizeOf(checkpointFile(dataDir).load()), 'after a restart').to.equal(last);
    } finally {
      await Promise.all(children.map((child) => child.kill()));
    }
  });
});
