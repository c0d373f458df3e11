/**
 * The latest signed checkpoint as a control document (signed-checkpoints.ts): its tree size never goes down and a
 * size once stored keeps its root, whatever another process stored meanwhile (issue 41: the log never signs what
 * does not extend what it signed).
 */
import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import { checkpointBody, parseCheckpoint } from '../../../shared/read-model/transparency/checkpoint.ts';
import { signedCheckpointDoc, signedCheckpointOf, storeSignedCheckpoint, type SignedCheckpointDoc } from '../../../shared/read-model/transparency/signed-checkpoints.ts';
import { openNote, signNote, verifierKey } from '../../../shared/read-model/transparency/signed-note.ts';

const doc = (size: number, rootByte: number): SignedCheckpointDoc => ({
  _id: 'transparency:checkpoint',
  size,
  root: Buffer.alloc(32, rootByte).toString('base64'),
  note: `example.com/log\n${size}\n${Buffer.alloc(32, rootByte).toString('base64')}\n\n— example.com/log sig\n`,
});

describe('transparency log: the stored signed checkpoint', function () {
  it('stores a first checkpoint, then only a larger tree over the one it read', async function () {
    const store = createMemoryReadStore();
    expect(await storeSignedCheckpoint(store, doc(10, 1), undefined)).to.equal(true);
    expect(await storeSignedCheckpoint(store, doc(12, 2), doc(10, 1))).to.equal(true);
    expect(signedCheckpointOf(await store.readControl())).to.deep.equal(doc(12, 2));
  });

  it('refuses a tree of the same size (another root) or a smaller one, and keeps the one stored', async function () {
    const store = createMemoryReadStore();
    await storeSignedCheckpoint(store, doc(10, 1), undefined);
    expect(await storeSignedCheckpoint(store, doc(10, 9), doc(10, 1)), 'same size, another root').to.equal(false);
    expect(await storeSignedCheckpoint(store, doc(9, 9), doc(10, 1)), 'smaller').to.equal(false);
    expect(signedCheckpointOf(await store.readControl())).to.deep.equal(doc(10, 1));
  });

  it('refuses to store over a checkpoint another process stored since it read: a larger one is never replaced by a smaller', async function () {
    const store = createMemoryReadStore();
    await storeSignedCheckpoint(store, doc(10, 1), undefined);
    expect(await storeSignedCheckpoint(store, doc(12, 2), doc(10, 1)), 'the other process').to.equal(true);
    expect(await storeSignedCheckpoint(store, doc(11, 3), doc(10, 1)), 'this one, from its stale read').to.equal(false);
    expect(signedCheckpointOf(await store.readControl())).to.deep.equal(doc(12, 2));
  });

  it('reads a note\'s text where the signature covers it: a text holding a blank line is refused, as when opened with the key', function () {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const body = checkpointBody({ origin: 'example.com/log', size: 10, root: Buffer.alloc(32, 1) });
    // The log's signature covers the body and what follows its blank line; cut at that line, it would read as the tree of 10.
    const note = signNote(`${body}\nnot a checkpoint line\n`, 'example.com/log', privateKey);
    expect(() => parseCheckpoint(openNote(note, verifierKey('example.com/log', publicKey)))).to.throw(/empty extension line/);
    expect(() => signedCheckpointDoc(note)).to.throw(/empty extension line/);
  });
});
