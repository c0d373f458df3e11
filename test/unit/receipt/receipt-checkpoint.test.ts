/**
 * A receipt's pinned checkpoint (`services/audit/receipt/receipt-checkpoint.ts`, issue 32) in process, without a service:
 * the header read as docs/api.md writes it (`Watchcat-Checkpoint: <size> <root base64>`, covered by the signature),
 * and a newer signed checkpoint checked against it, and the tree against the position its data was read at by
 * inclusion proofs (issue 40). The trees and their consistency proofs are computed here by
 * hand from RFC 9162 (leaf `SHA-256(0x00 || entry)`, node `SHA-256(0x01 || left || right)`, `SUBPROOF` of 2.1.4),
 * not by the log's own Merkle code.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import { checkExtends, checkHoldsNothingAfter, pinnedCheckpoint } from '../../../services/audit/receipt/receipt-checkpoint.ts';
import type { SavedResponse } from '../../../services/audit/receipt/saved-response.ts';
import { signNote, verifierKey } from '../../../shared/read-model/transparency/signed-note.ts';

const ORIGIN = 'watch.example/watchcat/events';
const sha = (...parts: Buffer[]): Buffer => createHash('sha256').update(Buffer.concat(parts)).digest();
const leaf = (entry: string): Buffer => sha(Buffer.of(0), Buffer.from(entry));
const node = (left: Buffer, right: Buffer): Buffer => sha(Buffer.of(1), left, right);
const [l0, l1, l2] = ['a', 'b', 'c'].map(leaf) as [Buffer, Buffer, Buffer];
// MTH of 1, 2 and 3 leaves (RFC 9162 2.1.1: the left subtree is the largest power of two below the size).
const root1 = l0;
const root2 = node(l0, l1);
const root3 = node(root2, l2);
const b64 = (hash: Buffer): string => hash.toString('base64');

function response(headers: Record<string, string[]>): SavedResponse {
  return { status: 200, headers, body: Buffer.alloc(0) };
}

describe('a receipt\'s Watchcat-Checkpoint', () => {
  const covered = ['"@status"', '"watchcat-checkpoint"'];

  it('is read as its size and root when the signature covers it', () => {
    expect(pinnedCheckpoint(response({ 'watchcat-checkpoint': [`3 ${b64(root3)}`] }), covered)).to.deep.equal({ size: 3, root: b64(root3) });
    expect(pinnedCheckpoint(response({ 'watchcat-checkpoint': [`0 ${b64(sha())}`] }), covered)).to.deep.equal({ size: 0, root: b64(sha()) });
  });

  it('is named absent when the header is missing or empty', () => {
    const absent = 'the receipt states no transparency checkpoint (no Watchcat-Checkpoint header)';
    expect(pinnedCheckpoint(response({}), covered)).to.equal(absent);
    expect(pinnedCheckpoint(response({ 'watchcat-checkpoint': [] }), covered)).to.equal(absent);
  });

  it('is refused when the signature does not cover it, even if another field mentions it', () => {
    const headers = { 'watchcat-checkpoint': [`3 ${b64(root3)}`] };
    const refused = 'the receipt\'s signature does not cover its Watchcat-Checkpoint header';
    expect(pinnedCheckpoint(response(headers), ['"@status"'])).to.equal(refused);
    expect(pinnedCheckpoint(response(headers), ['watchcat-checkpoint', '"watchcat-checkpoint";sf'])).to.equal(refused);
  });

  it('is refused, quoted, when it is not "<tree size> <root base64>" (a root not of 32 bytes, a size not decimal, two values)', () => {
    for (const value of [[`x3 ${b64(root3)}`], [`3 ${b64(root3)} `], [`3  ${b64(root3)}`], [`3 ${b64(root3).slice(0, -1)}`], [`-3 ${b64(root3)}`],
      [`3 ${b64(root3)}`, `3 ${b64(root3)}`], ['', `3 ${b64(root3)}`], [`3 ${b64(root3).replace('=', 'A')}`]]) {
      expect(pinnedCheckpoint(response({ 'watchcat-checkpoint': value }), covered))
        .to.equal(`the receipt's Watchcat-Checkpoint is not "<tree size> <root base64>": ${value.join(', ')}`);
    }
  });
});

describe('a receipt\'s Watchcat-Checkpoint root', () => {
  it('is refused in any spelling but canonical base64, though Node decodes it to the same bytes', () => {
    // The last character before the padding with its two unused low bits set.
    const spelled = b64(root3).replace(/.(?==$)/, (c) => String.fromCharCode(c.charCodeAt(0) + 1));
    expect(spelled).to.not.equal(b64(root3));
    expect(Buffer.from(spelled, 'base64').equals(root3)).to.equal(true);
    expect(pinnedCheckpoint(response({ 'watchcat-checkpoint': [`3 ${spelled}`] }), ['"watchcat-checkpoint"']))
      .to.equal(`the receipt's Watchcat-Checkpoint is not "<tree size> <root base64>": 3 ${spelled}`);
  });
});

describe('a newer checkpoint against the one a receipt pins', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const key = verifierKey(ORIGIN, publicKey);
  const note = (size: number, root: Buffer): string => signNote(`${ORIGIN}\n${size}\n${b64(root)}\n`, ORIGIN, privateKey);
  const noProof = async (): Promise<never> => { throw new Error('no proof is needed here'); };

  it('holds when a consistency proof shows the newer tree extends the pinned one, asked from the pinned size to the newer', async () => {
    const asked: Array<[number, number]> = [];
    const newer = await checkExtends({ size: 2, root: b64(root2) }, note(3, root3), key, async (from, to) => {
      asked.push([from, to]);
      return { root: b64(root3), proof: [b64(l2)] };
    });
    expect(newer.size).to.equal(3);
    expect(b64(Buffer.from(newer.root))).to.equal(b64(root3));
    expect(asked).to.deep.equal([[2, 3]]);
    const fromOne = await checkExtends({ size: 1, root: b64(root1) }, note(3, root3), key, async () => ({ root: b64(root3), proof: [b64(l1), b64(l2)] }));
    expect(fromOne.size).to.equal(3);
  });

  it('is a fork when the proof does not verify, is missing, or answers another root', async () => {
    const pinned = { size: 2, root: b64(root2) };
    const fork = 'fork: the tree of 3 leaves does not extend the tree of 2 leaves (root ' + b64(root2) + ') the receipt pins';
    for (const answer of [{ root: b64(root3), proof: [b64(l1)] }, { root: b64(root3) }, { root: b64(root3), proof: [] },
      { root: b64(root2), proof: [b64(l2)] }, { proof: [b64(l2)] }]) {
      await expectError(checkExtends(pinned, note(3, root3), key, async () => answer), fork);
    }
  });

  it('holds from the empty tree with the empty tree\'s root only: an empty tree stated with another root is a fork', async () => {
    // RFC 9162, section 2.1.1: the hash of an empty list is the hash of an empty string.
    const emptyRoot = createHash('sha256').digest('base64');
    expect((await checkExtends({ size: 0, root: emptyRoot }, note(3, root3), key, noProof)).size).to.equal(3);
    await expectError(checkExtends({ size: 0, root: b64(root2) }, note(3, root3), key, noProof),
      `fork: the tree of 3 leaves does not extend the tree of 0 leaves (root ${b64(root2)}) the receipt pins`);
  });

  it('is a fork when the pinned root is not the one the proof starts from', async () => {
    await expectError(checkExtends({ size: 2, root: b64(node(l1, l0)) }, note(3, root3), key, async () => ({ root: b64(root3), proof: [b64(l2)] })),
      `fork: the tree of 3 leaves does not extend the tree of 2 leaves (root ${b64(node(l1, l0))}) the receipt pins`);
  });

  it('of the same size holds with the same root, without a proof, and is a fork with another', async () => {
    const same = await checkExtends({ size: 2, root: b64(root2) }, note(2, root2), key, noProof);
    expect(same.size).to.equal(2);
    await expectError(checkExtends({ size: 2, root: b64(root2) }, note(2, node(l1, l0)), key, noProof),
      `fork: the receipt pins root ${b64(root2)} for 2 leaves, the newer checkpoint ${b64(node(l1, l0))}`);
  });

  it('holds over an empty pinned tree without a proof', async () => {
    const newer = await checkExtends({ size: 0, root: b64(sha()) }, note(3, root3), key, noProof);
    expect(newer.size).to.equal(3);
  });

  it('smaller than the pinned one is a rollback', async () => {
    await expectError(checkExtends({ size: 3, root: b64(root3) }, note(2, root2), key, noProof),
      'the newer checkpoint holds 2 leaves, fewer than the 3 the receipt pins: a rollback, or not a newer checkpoint');
  });

  it('not signed by the log\'s key, or not a checkpoint, does not hold', async () => {
    const other = verifierKey(ORIGIN, generateKeyPairSync('ed25519').publicKey);
    await expectError(checkExtends({ size: 2, root: b64(root2) }, note(3, root3), other, noProof), /^the newer checkpoint does not hold: the note carries no signature of /);
    await expectError(checkExtends({ size: 2, root: b64(root2) }, signNote(`${ORIGIN}\nthree\n${b64(root3)}\n`, ORIGIN, privateKey), key, noProof),
      'the newer checkpoint does not hold: not a tlog checkpoint: expected an origin line, a tree size and a base64 root hash');
  });

  it('of another origin than the log key\'s name does not hold, though that key signed it', async () => {
    // The log's key, signing under its name a checkpoint whose origin line names another log.
    const foreign = signNote(`other.example/log\n3\n${b64(root3)}\n`, ORIGIN, privateKey);
    await expectError(checkExtends({ size: 2, root: b64(root2) }, foreign, key, async () => ({ root: b64(root3), proof: [b64(l2)] })),
      `the newer checkpoint does not hold: the checkpoint's origin other.example/log is not the name of the log key that signed it (${ORIGIN})`);
  });
});

describe('a pinned tree against the position a receipt\'s data was read at (issue 40)', () => {
  // Leaves a, b, c are the events at positions 10, 20, 30; RFC 9162 2.1.3 audit paths written out by hand.
  const newer = { origin: ORIGIN, size: 3, root: root3 };
  const inclusion = (root: Buffer, index: number, leafHash: Buffer, path: Buffer[]) => ({ root: b64(root), leaf_index: index, leaf_hash: b64(leafHash), proof: path.map(b64) });
  const proofs = (answers: Record<string, ReturnType<typeof inclusion>>) => async (position: number, size: number) => answers[`${position}@${size}`];

  it('holds when the event at that position is the pinned tree\'s last leaf, by a proof against the pinned root', async () => {
    const shown = await checkHoldsNothingAfter({ size: 2, root: b64(root2) }, 20, newer, proofs({ '20@2': inclusion(root2, 1, l1, [l0]) }));
    expect(shown).to.equal('the event at position 20, where the answer\'s data was read, is the last leaf of the pinned tree');
  });

  it('is refused when the pinned tree holds events after that position, naming how many', async () => {
    await expectError(checkHoldsNothingAfter({ size: 3, root: b64(root3) }, 20, newer, proofs({ '20@3': inclusion(root3, 1, l1, [l0, l2]) })),
      'the pinned tree of 3 leaves holds 1 event after position 20, where the answer\'s data was read: the answer had not seen it');
    await expectError(checkHoldsNothingAfter({ size: 3, root: b64(root3) }, 10, newer, proofs({ '10@3': inclusion(root3, 0, l0, [l1, l2]) })),
      'the pinned tree of 3 leaves holds 2 events after position 10, where the answer\'s data was read: the answer had not seen them');
  });

  it('is refused when the proof that the event is the last leaf does not verify against the pinned root', async () => {
    await expectError(checkHoldsNothingAfter({ size: 3, root: b64(root3) }, 20, newer, proofs({ '20@3': inclusion(root3, 2, l1, [root2]) })),
      `the inclusion proof of the event at position 20 does not verify against the pinned root ${b64(root3)}`);
  });

  it('holds when the event is not in the pinned tree but in the newer one, past the pinned leaves', async () => {
    const shown = await checkHoldsNothingAfter({ size: 2, root: b64(root2) }, 30, newer, proofs({ '30@3': inclusion(root3, 2, l2, [root2]) }));
    expect(shown).to.equal('the event at position 30, where the answer\'s data was read, is leaf 2 of the newer tree, after the 2 pinned leaves');
  });

  it('is refused when the newer tree puts the event inside the pinned one, or holds no event at that position', async () => {
    await expectError(checkHoldsNothingAfter({ size: 2, root: b64(root2) }, 20, newer, proofs({ '20@3': inclusion(root3, 1, l1, [l0, l2]) })),
      'the event at position 20 is leaf 1, inside the pinned tree of 2 leaves, though the deployment said it was not');
    await expectError(checkHoldsNothingAfter({ size: 2, root: b64(root2) }, 40, newer, proofs({})),
      /^the checkpoint of 3 leaves holds no event at position 40, where the answer's data was read, so what the pinned tree holds after it cannot be shown/);
  });

  it('holds over an empty pinned tree without a proof', async () => {
    expect(await checkHoldsNothingAfter({ size: 0, root: b64(sha()) }, 20, newer, proofs({}))).to.equal('the pinned tree is empty');
  });
});

async function expectError(promise: Promise<unknown>, message: string | RegExp): Promise<void> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error, 'an error').to.be.instanceOf(Error);
  if (typeof message === 'string') expect((error as Error).message).to.equal(message);
  else expect((error as Error).message).to.match(message);
}
