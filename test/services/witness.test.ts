/**
 * The witness's `add-checkpoint` (docs/audit.md, "Witnesses"; C2SP tlog-witness): each answer the specification
 * names, from a log whose checkpoints are signed here with specVerifierKey's key and whose trees and proofs come
 * from an in-memory tree (shared/read-model/transparency/memory-tree.ts, checked against Go's tlog in test/interop). The
 * cosignature is checked byte by byte from the specification (test/unit/transparency/cosignature.test.ts says how).
 */
import { createHash, generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { expect } from 'chai';
import { checkpointBody } from '../../shared/read-model/transparency/checkpoint.ts';
import { MemoryTree } from '../../shared/read-model/transparency/memory-tree.ts';
import { parseVerifierKey, signNote } from '../../shared/read-model/transparency/signed-note.ts';
import { originHash, Witness, type AddCheckpointAnswer, type WitnessedTree, type WitnessStore } from '../../services/witness/witness.ts';
import { specVerifierKey } from '../support/note-keys.ts';

const ORIGIN = 'watch.example/watchcat/events';
const NAME = 'witness.example/w1';
const NOW = 1_700_000_000;

const treeOf = (size: number, tag = 'a') => {
  const tree = new MemoryTree();
  for (let i = 0; i < size; i += 1) tree.append(`${tag}-${i}`);
  return tree;
};
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

function memoryStore(): WitnessStore & { trees: Map<string, WitnessedTree>; puts: number } {
  const trees = new Map<string, WitnessedTree>();
  const store = {
    trees, puts: 0,
    get: (origin: string) => trees.get(origin),
    // Stored a turn later, as a file flushed to disk is: a witness that checked a second request meanwhile would race.
    put: async (origin: string, tree: WitnessedTree) => {
      await new Promise((resolve) => setImmediate(resolve));
      store.puts += 1;
      trees.set(origin, tree);
    },
  };
  return store;
}

describe('witness: add-checkpoint as C2SP tlog-witness answers it', () => {
  const logKey = generateKeyPairSync('ed25519').privateKey;
  const witnessKey = generateKeyPairSync('ed25519');
  let store: ReturnType<typeof memoryStore>;
  let witness: Witness;
  beforeEach(() => {
    store = memoryStore();
    witness = new Witness({ name: NAME, key: witnessKey.privateKey, logs: [parseVerifierKey(specVerifierKey(ORIGIN, logKey))], store, now: () => NOW });
  });

  const checkpoint = (tree: MemoryTree, size = tree.size, key: KeyObject = logKey, origin = ORIGIN) =>
    signNote(checkpointBody({ origin, size, root: tree.root(size) }), origin, key);
  const request = (old: number, proof: Uint8Array[], note: string) => `old ${old}\n${proof.map((hash) => `${b64(hash)}\n`).join('')}\n${note}`;
  const submit = (old: number, tree: MemoryTree, size = tree.size, proof = old === 0 || old === size ? [] : tree.consistency(old, size)) =>
    witness.addCheckpoint(request(old, proof, checkpoint(tree, size)));
  const status = (answer: AddCheckpointAnswer) => answer.status;

  it('cosigns a first checkpoint from old size 0 with a cosignature/v1 line stamped with its time, and keeps the tree', async () => {
    const tree = treeOf(5);
    const answer = await submit(0, tree);
    expect(answer.status).to.equal(200);
    const line = (answer as { cosignatures: string }).cosignatures;
    const [, name, sig] = /^\u2014 (\S+) (\S+)\n$/.exec(line)!;
    expect(name).to.equal(NAME);
    const bytes = Buffer.from(sig!, 'base64');
    const raw = Buffer.from(String(witnessKey.publicKey.export({ format: 'jwk' }).x), 'base64url');
    expect(bytes.subarray(0, 4).equals(createHash('sha256').update(`${NAME}\n`).update(Buffer.of(4)).update(raw).digest().subarray(0, 4))).to.equal(true);
    expect(Number(bytes.readBigUInt64BE(4))).to.equal(NOW);
    const body = checkpointBody({ origin: ORIGIN, size: 5, root: tree.root() });
    expect(verify(null, Buffer.from(`cosignature/v1\ntime ${NOW}\n${body}`), witnessKey.publicKey, bytes.subarray(12))).to.equal(true);
    expect(store.trees.get(ORIGIN)).to.include({ size: 5, root: b64(tree.root()) });
  });

  it('cosigns a larger tree whose consistency proof from the tree it holds verifies, and the same tree again', async () => {
    const tree = treeOf(13);
    expect(status(await submit(0, tree, 5))).to.equal(200);
    expect(status(await submit(5, tree, 13))).to.equal(200);
    expect(status(await submit(13, tree, 13))).to.equal(200);
    expect(store.trees.get(ORIGIN)).to.include({ size: 13, root: b64(tree.root()) });
  });

  it('answers 409 with the size it holds to an old size that is not it, and keeps its tree', async () => {
    const tree = treeOf(13);
    await submit(0, tree, 8);
    expect(await submit(0, tree, 13)).to.deep.equal({ status: 409, size: 8 });
    expect(await submit(5, tree, 13)).to.deep.equal({ status: 409, size: 8 });
    expect(store.trees.get(ORIGIN)?.size).to.equal(8);
  });

  it('refuses a fork, another root at the size it holds or a tree that does not extend its own, with 422, and keeps its tree', async () => {
    const honest = treeOf(8);
    await submit(0, honest);
    const forked = treeOf(8, 'b');
    const sameSize = await submit(8, forked);
    expect(sameSize).to.include({ status: 422, fork: true });
    expect((sameSize as { reason: string }).reason).to.equal(`fork: another root for the tree of 8 leaves than the one cosigned (${b64(honest.root())})`);
    expect(await submit(8, honest, 8, [honest.root()]), 'the tree held, with a proof').to.include({ status: 422, reason: 'a proof between equal sizes must be empty' });
    // A longer forked tree with its own (valid, for its own history) proof from 8 leaves.
    const longer = treeOf(12, 'b');
    expect(await submit(8, longer, 12, longer.consistency(8, 12))).to.include({ status: 422, fork: true });
    expect(store.trees.get(ORIGIN)).to.include({ size: 8, root: b64(honest.root()) });
    expect(store.puts).to.equal(1);
  });

  it('refuses another body at the size it holds, the same tree committing another serial index: a fork of the index', async () => {
    const tree = treeOf(8);
    const withIndex = (root: Buffer) => signNote(checkpointBody({
      origin: ORIGIN, size: 8, root: tree.root(), extensions: [`watchcat/serial-index/v1 ${b64(root)} ${b64(Buffer.alloc(32, 9))}`],
    }), ORIGIN, logKey);
    const first = withIndex(Buffer.alloc(32, 1));
    expect(status(await witness.addCheckpoint(request(0, [], first)))).to.equal(200);
    // The very checkpoint again (a log asking once more after a restart) is cosigned again.
    expect(status(await witness.addCheckpoint(request(8, [], first)))).to.equal(200);
    // The same size and root with another index line: cosigned, it would let the log prove two statuses of one serial
    // at one checkpoint, each under the witness's cosignature.
    expect(await witness.addCheckpoint(request(8, [], withIndex(Buffer.alloc(32, 2))))).to.include({
      status: 422, fork: true, reason: 'fork: another checkpoint body for the tree of 8 leaves than the one cosigned (its extension lines differ)',
    });
    expect(await witness.addCheckpoint(request(8, [], checkpoint(tree)))).to.include({ status: 422, fork: true });
    expect(store.trees.get(ORIGIN)?.note.startsWith(first.slice(0, first.indexOf('\n\n')))).to.equal(true);
    expect(store.puts).to.equal(2);
  });

  it('reads a signature line of the log repeated as one: checked once, kept once in the note it serves', async () => {
    const tree = treeOf(4);
    const note = checkpoint(tree);
    const line = note.slice(note.lastIndexOf('\n\n') + 2);
    expect(status(await witness.addCheckpoint(request(0, [], `${note}${line.repeat(60)}`)))).to.equal(200);
    const kept = store.trees.get(ORIGIN)!.note;
    expect(kept.split('\n').filter((stored) => `${stored}\n` === line)).to.have.length(1);
    // Another line of its key that fails still refuses the note, wherever it stands.
    const bad = line.replace(/(\S)(\S{8})\n$/, (_, char: string, tail: string) => `${char === 'A' ? 'B' : 'A'}${tail}\n`);
    expect(status(await witness.addCheckpoint(request(4, [], `${note}${line.repeat(3)}${bad}`)))).to.equal(403);
  });

  it('cosigns a checkpoint signed by any key it trusts for the log (a rotation: the old key and the new), and keeps each signature line', async () => {
    const newKey = generateKeyPairSync('ed25519').privateKey;
    const rotating = new Witness({
      name: NAME, key: witnessKey.privateKey, store,
      logs: [parseVerifierKey(specVerifierKey(ORIGIN, logKey)), parseVerifierKey(specVerifierKey(ORIGIN, newKey))], now: () => NOW,
    });
    const tree = treeOf(6);
    const body = checkpointBody({ origin: ORIGIN, size: 6, root: tree.root() });
    expect(status(await rotating.addCheckpoint(request(0, [], signNote(body, ORIGIN, newKey))))).to.equal(200);
    const both = signNote(body, ORIGIN, logKey, newKey);
    expect(status(await rotating.addCheckpoint(request(6, [], both)))).to.equal(200);
    expect(store.trees.get(ORIGIN)!.note.startsWith(both), 'both lines kept, as signed, the cosignature after them').to.equal(true);
  });

  it('refuses a tree size past 2^53 - 1 as no checkpoint', async () => {
    const note = signNote(`${ORIGIN}\n99999999999999999999\n${b64(treeOf(1).root())}\n`, ORIGIN, logKey);
    expect(await witness.addCheckpoint(request(0, [], note))).to.include({ status: 400, reason: 'not a tlog checkpoint: expected an origin line, a tree size and a base64 root hash' });
  });

  it('refuses another body of the empty tree once it holds one: a fork of the index at size 0 too', async () => {
    const empty = (index: number) => signNote(checkpointBody({
      origin: ORIGIN, size: 0, root: treeOf(0).root(), extensions: [`watchcat/serial-index/v1 ${b64(Buffer.alloc(32, index))} ${b64(Buffer.alloc(32, 9))}`],
    }), ORIGIN, logKey);
    expect(status(await witness.addCheckpoint(request(0, [], empty(1))))).to.equal(200);
    expect(status(await witness.addCheckpoint(request(0, [], empty(1)))), 'the same body again').to.equal(200);
    expect(await witness.addCheckpoint(request(0, [], empty(2)))).to.include({ status: 422, fork: true });
    expect(store.trees.get(ORIGIN)?.note.startsWith(empty(1).slice(0, empty(1).indexOf('\n\n')))).to.equal(true);
    // Growing from it asks no proof, as from no tree at all.
    expect(status(await submit(0, treeOf(3)))).to.equal(200);
  });

  it('answers 404 for an origin it does not witness, 403 for a checkpoint no key of the log signed or a signature of its key that fails', async () => {
    const tree = treeOf(3);
    const other = signNote(checkpointBody({ origin: 'other.example/log', size: 3, root: tree.root() }), 'other.example/log', logKey);
    expect(await witness.addCheckpoint(request(0, [], other))).to.include({ status: 404 });
    expect(await witness.addCheckpoint(request(0, [], checkpoint(tree, 3, generateKeyPairSync('ed25519').privateKey)))).to.include({ status: 403 });
    const note = checkpoint(tree);
    // A character of the signature itself changed, its key id (the first bytes) kept: a known key's signature that fails.
    const tampered = note.replace(/(\S{10})(\S)(\S{8})\n$/, (_, head: string, char: string, tail: string) => `${head}${char === 'A' ? 'B' : 'A'}${tail}\n`);
    const forged = note.replace('\n3\n', '\n4\n');
    expect(await witness.addCheckpoint(request(0, [], tampered))).to.include({ status: 403 });
    // The valid line beside it does not save it: the note is malformed (C2SP signed-note).
    const badLine = tampered.slice(tampered.lastIndexOf('\u2014'));
    expect(await witness.addCheckpoint(request(0, [], `${note}${badLine}`))).to.include({ status: 403 });
    expect(await witness.addCheckpoint(request(0, [], forged))).to.include({ status: 403 });
    expect(store.puts).to.equal(0);
  });

  it('leaves aside signature lines of keys it does not know, another witness\'s cosignature among them', async () => {
    const tree = treeOf(4);
    const stranger = `\u2014 witness.example/w2 ${Buffer.alloc(76, 7).toString('base64')}\n`;
    expect(status(await witness.addCheckpoint(request(0, [], `${checkpoint(tree)}${stranger}`)))).to.equal(200);
    expect(store.trees.get(ORIGIN)?.note).not.to.include('witness.example/w2');
  });

  it('answers 400 to what it cannot read, an old size above the checkpoint\'s or more than 63 proof lines', async () => {
    const tree = treeOf(6);
    for (const body of ['', 'old 1\n', `old 01\n\n${checkpoint(tree)}`, `old -1\n\n${checkpoint(tree)}`, `new 0\n\n${checkpoint(tree)}`,
      `old 0\nnot-a-hash\n\n${checkpoint(tree)}`, `old 0\n\nno signature\n`, `old 7\n\n${checkpoint(tree)}`,
      request(1, Array.from({ length: 64 }, () => tree.root()), checkpoint(tree))]) {
      expect((await witness.addCheckpoint(body)).status, JSON.stringify(body)).to.equal(400);
    }
    expect(store.puts).to.equal(0);
  });

  it('answers 422 to a proof from the empty tree, to a bad proof and to an empty tree whose root is not the empty root', async () => {
    const tree = treeOf(6);
    expect(await witness.addCheckpoint(request(0, [tree.root()], checkpoint(tree)))).to.include({ status: 422 });
    expect(status(await submit(0, tree, 3))).to.equal(200);
    const wrong = tree.consistency(3, 6).map(() => tree.root());
    expect(await witness.addCheckpoint(request(3, wrong, checkpoint(tree)))).to.include({ status: 422 });
    const empty = signNote(checkpointBody({ origin: ORIGIN, size: 0, root: tree.root() }), ORIGIN, logKey);
    expect(await witness.addCheckpoint(request(0, [], empty))).to.include({ status: 422 });
  });

  it('checks and stores one request at a time: two racing from the same old size cannot both be cosigned', async () => {
    const tree = treeOf(9);
    const answers = await Promise.all([submit(0, tree, 4), submit(0, tree, 9)]);
    expect(answers.map(status)).to.deep.equal([200, 409]);
    expect(store.trees.get(ORIGIN)?.size).to.equal(4);
  });

  it('serves monitors the latest checkpoint it cosigned under the SHA-256 of the origin, with the log\'s signature and its own', async () => {
    const hash = createHash('sha256').update(ORIGIN).digest('hex');
    expect(originHash(ORIGIN)).to.equal(hash);
    expect(witness.checkpoint(hash)).to.equal(undefined);
    const tree = treeOf(2);
    const answer = await submit(0, tree);
    const note = checkpoint(tree);
    expect(witness.checkpoint(hash)).to.equal(`${note}${(answer as { cosignatures: string }).cosignatures}`);
  });
});
