/**
 * A receipt's pinned checkpoint (`services/receipt/receipt-checkpoint.ts`, issue 32) in process, without a service:
 * the header read as CONTRACT.md writes it (`Watchcat-Checkpoint: <size> <root base64>`, covered by the signature),
 * and a newer signed checkpoint checked against it. The trees and their consistency proofs are computed here by
 * hand from RFC 9162 (leaf `SHA-256(0x00 || entry)`, node `SHA-256(0x01 || left || right)`, `SUBPROOF` of 2.1.4),
 * not by the log's own Merkle code.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import { checkExtends, pinnedCheckpoint } from '../../../services/receipt/receipt-checkpoint.ts';
import type { SavedResponse } from '../../../services/receipt/saved-response.ts';
import { signNote, verifierKey } from '../../../shared/transparency/signed-note.ts';

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
});

async function expectError(promise: Promise<unknown>, message: string | RegExp): Promise<void> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error, 'an error').to.be.instanceOf(Error);
  if (typeof message === 'string') expect((error as Error).message).to.equal(message);
  else expect((error as Error).message).to.match(message);
}
