/**
 * The serial index's prefix tree (shared/read-model/transparency/prefix-tree.ts): its root after any sequence of sets equals
 * the root computed here from scratch, from the final entries alone, by the definitions torchwood's prefix package
 * documents (filippo.io/torchwood v0.6.1, prefix/tree.go's Node.Hash; written here over bit strings, not from our
 * code); so the root depends on the entries only, not on the order they came in. Its proofs verify with
 * `verifyPrefixProof`, and a proof proves only what it was made for: another value, the absence of a present key,
 * the presence of an absent one, an altered byte, a node dropped, another root, all refused. That is what makes two
 * different answers for one serial at one root impossible to verify both. Torchwood's own verifier checks the same
 * proofs in test/interop/prefix-interop.test.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import fc from 'fast-check';
import { decodeProof, encodeProof, PrefixTree, verifyPrefixProof, type ProofNode } from '../../../shared/read-model/transparency/prefix-tree.ts';

const H = (...parts: Uint8Array[]): Buffer => createHash('sha256').update(Buffer.concat(parts)).digest();
const bitsOf = (key: Uint8Array) => [...key].map((byte) => byte.toString(2).padStart(8, '0')).join('');

/** H(uint32be(length) || the prefix's bits as 32 bytes, zero-padded). */
function labelHash(prefix: string, bytes?: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(prefix.length);
  const padded = bytes ?? Buffer.from(prefix.padEnd(256, '0').match(/.{8}/g)!.map((byte) => parseInt(byte, 2)));
  return H(length, padded);
}
const nodeHash = (value: Buffer, label: Buffer) => H(value, label);
const EMPTY_LABEL = labelHash('', Buffer.alloc(32, 1));
const EMPTY_NODE = nodeHash(nodeHash(H(Buffer.of(0)), EMPTY_LABEL), EMPTY_LABEL);

/** The hash of the subtree of `entries` (bit-string key, value), all sharing their first `depth` bits. */
function subtree(entries: [string, Buffer][]): Buffer {
  if (entries.length === 1) return nodeHash(entries[0]![1], labelHash(entries[0]![0]));
  let shared = 0;
  while (entries.every(([key]) => key[shared] === entries[0]![0][shared])) shared += 1;
  const left = entries.filter(([key]) => key[shared] === '0');
  const right = entries.filter(([key]) => key[shared] === '1');
  return nodeHash(H(subtree(left), subtree(right)), labelHash(entries[0]![0].slice(0, shared)));
}

function rootFromScratch(entries: ReadonlyMap<string, Buffer>): Buffer {
  if (entries.size === 0) return nodeHash(H(Buffer.of(0)), labelHash(''));
  const all = [...entries];
  const side = (bit: string) => {
    const under = all.filter(([key]) => key[0] === bit);
    return under.length === 0 ? EMPTY_NODE : subtree(under);
  };
  return nodeHash(H(side('0'), side('1')), labelHash(''));
}

describe('serial index: the prefix tree', function () {
  it('has, after any sets, the root computed from scratch from its final entries', function () {
    // Keys from a small alphabet of bytes, so that some share long prefixes, some are set again.
    const key = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => Buffer.from(bytes.map((byte) => byte & 0x83)));
    fc.assert(fc.property(fc.array(fc.tuple(key, fc.integer({ min: 0, max: 3 })), { maxLength: 40 }), (sets) => {
      const tree = new PrefixTree();
      const final = new Map<string, Buffer>();
      for (const [k, v] of sets) {
        const value = H(Buffer.of(v));
        tree.set(k, value);
        final.set(bitsOf(k), value);
      }
      expect(tree.size).to.equal(final.size);
      expect(tree.root().toString('hex')).to.equal(rootFromScratch(final).toString('hex'));
    }), { numRuns: 300 });
  });

  it('proves each key present with its value and other keys absent, and each proof proves nothing else', function () {
    const tree = new PrefixTree();
    const keys = Array.from({ length: 200 }, () => randomBytes(32));
    keys.forEach((key, i) => tree.set(key, H(Buffer.from(`AUTHENTIC ${i}`))));
    const root = tree.root();
    const absent = randomBytes(32);
    for (const [i, key] of keys.entries()) {
      const { value, proof } = tree.prove(key);
      expect(value && Buffer.from(value).equals(H(Buffer.from(`AUTHENTIC ${i}`)))).to.equal(true);
      expect(verifyPrefixProof(root, key, value, proof)).to.equal(true);
      expect(verifyPrefixProof(root, key, H(Buffer.from('STOLEN')), proof), 'another value').to.equal(false);
      expect(verifyPrefixProof(root, key, undefined, proof), 'absent, with its own proof').to.equal(false);
      expect(verifyPrefixProof(root, key, undefined, tree.prove(absent).proof), 'absent, with another key\'s').to.equal(false);
    }
    const { value, proof } = tree.prove(absent);
    expect(value).to.equal(undefined);
    expect(verifyPrefixProof(root, absent, undefined, proof)).to.equal(true);
    expect(verifyPrefixProof(root, absent, H(Buffer.from('AUTHENTIC 0')), proof), 'present').to.equal(false);
    expect(verifyPrefixProof(randomBytes(32), absent, undefined, proof), 'another root').to.equal(false);
  });

  it('refuses a proof with any byte of a node\'s hash or value altered, or a node dropped', function () {
    const tree = new PrefixTree();
    const keys = Array.from({ length: 64 }, () => randomBytes(32));
    for (const key of keys) tree.set(key, H(key));
    const root = tree.root();
    for (const [key, value] of [[keys[7]!, H(keys[7]!)], [randomBytes(32), undefined]] as const) {
      const { proof } = tree.prove(key);
      expect(verifyPrefixProof(root, key, value, proof)).to.equal(true);
      for (const [at, node] of proof.entries()) {
        for (const field of ['hash', 'value'] as const) {
          for (let byte = 0; byte < (node[field]?.length ?? 0); byte += 1) {
            const bytes = Buffer.from(node[field]!);
            bytes[byte]! ^= 0x01;
            const altered: ProofNode[] = proof.map((each, i) => (i === at ? { ...each, [field]: bytes } : each));
            expect(verifyPrefixProof(root, key, value, altered), `node ${at}'s ${field}, byte ${byte}`).to.equal(false);
          }
        }
        expect(verifyPrefixProof(root, key, value, proof.filter((_, i) => i !== at)), `node ${at} dropped`).to.equal(false);
      }
    }
  });

  it('refuses the absence of a present key proved by its own leaf under another label (what torchwood accepts)', function () {
    const tree = new PrefixTree();
    const keys = Array.from({ length: 64 }, () => randomBytes(32));
    for (const key of keys) tree.set(key, H(key));
    const key = keys[5]!;
    const [sibling, ...rest] = tree.prove(key).proof;
    // The key's leaf, its hash as the tree has it, under a label that differs from the key in its last bit only.
    const other = Buffer.from(key);
    other[31]! ^= 0x01;
    const leaf = nodeHash(H(key), labelHash(bitsOf(key)));
    for (const value of [undefined, H(key)]) {
      const forged: ProofNode[] = [{ bits: 256, label: other, hash: leaf, ...(value && { value }) }, sibling!, ...rest];
      expect(verifyPrefixProof(tree.root(), key, undefined, forged)).to.equal(false);
    }
  });

  it('reads back the proofs it encodes, and refuses bytes that end inside a node', function () {
    const tree = new PrefixTree();
    for (let i = 0; i < 100; i += 1) tree.set(randomBytes(32), H(Buffer.of(i)));
    for (const key of [randomBytes(32), randomBytes(32)]) {
      const { value, proof } = tree.prove(key);
      const bytes = encodeProof(proof);
      // Each node: 2 bytes of bit length, 1 flag, its label's bytes, 32 of hash, and 32 of value when it has one.
      expect(bytes.length).to.equal(proof.reduce((sum, node) => sum + 3 + Math.ceil(node.bits / 8) + 32 + (node.value ? 32 : 0), 0));
      const decoded = decodeProof(bytes);
      expect(verifyPrefixProof(tree.root(), key, value, decoded)).to.equal(true);
      expect(decoded.map((node) => encodeProof([node]).toString('hex'))).to.deep.equal(proof.map((node) => encodeProof([node]).toString('hex')));
      expect(() => decodeProof(bytes.subarray(0, bytes.length - 1))).to.throw(RangeError);
    }
  });
});
