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
/** The empty node as a proof holds it: a 0-bit label, its fixed hash, no value. */
const EMPTY_PROOF_NODE: ProofNode = { bits: 0, label: new Uint8Array(0), hash: EMPTY_NODE };
/** A key's leaf as a proof holds it, its value given when `bound` (the two first nodes of an absence proof). */
const leafNode = (key: Buffer, value: Buffer, bound = true): ProofNode =>
  ({ bits: 256, label: key, hash: nodeHash(value, labelHash(bitsOf(key))), ...(bound && { value }) });
/** A proof node with its bytes in hex, for comparing. */
const shown = (node: ProofNode) => ({ bits: node.bits, label: hex(node.label), hash: hex(node.hash), value: node.value && hex(node.value) });
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

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

  it('proves absence in the empty tree by the empty node alone, and takes no one-node proof for anything else', function () {
    const key = Buffer.alloc(32, 0x11);
    const emptyRoot = rootFromScratch(new Map());
    const empty = new PrefixTree();
    expect(hex(empty.root())).to.equal(hex(emptyRoot));
    const { value, proof } = empty.prove(key);
    expect(value).to.equal(undefined);
    expect(proof.map(shown)).to.deep.equal([shown(EMPTY_PROOF_NODE)]);
    expect(verifyPrefixProof(emptyRoot, key, undefined, [EMPTY_PROOF_NODE])).to.equal(true);
    // The empty node alone under a root that holds a key, on the key's side of the root or the other.
    for (const held of [Buffer.alloc(32, 0x12), Buffer.alloc(32, 0x91)]) {
      const one = new PrefixTree();
      one.set(held, H(held));
      expect(verifyPrefixProof(one.root(), key, undefined, [EMPTY_PROOF_NODE]), hex(held)).to.equal(false);
    }
    // Under the empty root, one node that is not the empty node: refused, not thrown.
    const notEmpty: ProofNode[] = [
      { ...EMPTY_PROOF_NODE, hash: H(Buffer.of(0)) },
      { bits: 257, label: Buffer.alloc(33), hash: EMPTY_NODE },
      { bits: 0, label: Buffer.of(0), hash: EMPTY_NODE },
      leafNode(key, H(key)),
    ];
    for (const [i, node] of notEmpty.entries()) expect(verifyPrefixProof(emptyRoot, key, undefined, [node]), `node ${i}`).to.equal(false);
    expect(verifyPrefixProof(emptyRoot, key, undefined, []), 'no node').to.equal(false);
  });

  it('proves a key absent beside the top node of its side, or where its side is empty, and refuses the empty node put for a side that holds keys', function () {
    const a = Buffer.alloc(32, 0x11);
    const b = Buffer.alloc(32, 0x91);
    const one = new PrefixTree();
    one.set(a, H(a));
    // b's side of the root is empty: the empty node, then the other side bound to its label.
    const onEmptySide = one.prove(b);
    expect(onEmptySide.value).to.equal(undefined);
    expect(onEmptySide.proof.map(shown)).to.deep.equal([shown(EMPTY_PROOF_NODE), shown(leafNode(a, H(a)))]);
    expect(verifyPrefixProof(one.root(), b, undefined, onEmptySide.proof)).to.equal(true);

    const two = new PrefixTree();
    two.set(a, H(a));
    two.set(b, H(b));
    // 0x12... leaves a's side at its top node, a's leaf: that leaf, then the other side's, both bound.
    const beside = Buffer.alloc(32, 0x12);
    const { proof } = two.prove(beside);
    expect(proof.map(shown)).to.deep.equal([shown(leafNode(a, H(a))), shown(leafNode(b, H(b)))]);
    expect(verifyPrefixProof(two.root(), beside, undefined, proof)).to.equal(true);
    // a "absent": the empty node's label with a's leaf hash, the root's left child's, so the root is reached (torchwood
    // v0.6.1 accepts it: test/interop/prefix-interop.test.ts).
    const forged: ProofNode[] = [{ ...EMPTY_PROOF_NODE, hash: leafNode(a, H(a)).hash }, leafNode(b, H(b))];
    expect(verifyPrefixProof(two.root(), a, undefined, forged)).to.equal(false);
  });

  it('proves keys that differ in their last bit only, under an inner node of 255 bits', function () {
    const a = Buffer.alloc(32, 0x5a);
    const b = Buffer.from(a);
    b[31]! ^= 0x01;
    const between = Buffer.from(a);
    between[31]! ^= 0x02;
    const tree = new PrefixTree();
    tree.set(a, H(a));
    tree.set(b, H(b));
    const root = tree.root();
    expect(hex(root)).to.equal(hex(rootFromScratch(new Map([[bitsOf(a), H(a)], [bitsOf(b), H(b)]]))));
    // a's sibling is b's leaf, then the root's other side, empty.
    expect(tree.prove(a).proof.map(shown)).to.deep.equal([shown(leafNode(b, H(b), false)), shown(EMPTY_PROOF_NODE)]);
    expect(verifyPrefixProof(root, a, H(a), tree.prove(a).proof)).to.equal(true);
    expect(verifyPrefixProof(root, b, H(b), tree.prove(b).proof)).to.equal(true);
    // `between` leaves the 254 bits a and b share: their inner node (its value the hash of its two children), the empty node.
    const inner: ProofNode = {
      bits: 255,
      label: Buffer.concat([a.subarray(0, 31), Buffer.of(a[31]! & 0xfe)]),
      hash: nodeHash(H(leafNode(a, H(a)).hash, leafNode(b, H(b)).hash), labelHash(bitsOf(a).slice(0, 255))),
      value: H(leafNode(a, H(a)).hash, leafNode(b, H(b)).hash),
    };
    expect(tree.prove(between).proof.map(shown)).to.deep.equal([shown(inner), shown(EMPTY_PROOF_NODE)]);
    expect(verifyPrefixProof(root, between, undefined, tree.prove(between).proof)).to.equal(true);
  });

  it('refuses a proof whose nodes cannot hang where they are put, and an absence proof whose two first nodes have no parent', function () {
    const tree = new PrefixTree();
    const keys = Array.from({ length: 64 }, () => randomBytes(32));
    for (const key of keys) tree.set(key, H(key));
    const root = tree.root();
    const key = keys[9]!;
    const { proof } = tree.prove(key);
    const [first, second, ...rest] = proof;
    const misplaced: [string, ProofNode[]][] = [
      ['a label longer than a key', [{ bits: 257, label: Buffer.alloc(33), hash: first!.hash }, second!, ...rest]],
      ['a label with a bit set past its length', [{ bits: 1, label: Buffer.of(0xc0), hash: first!.hash }, second!, ...rest]],
      ['a label of more bytes than its bits', [{ ...first!, label: Buffer.concat([first!.label, Buffer.of(0)]) }, second!, ...rest]],
      ['the key\'s own leaf as its sibling', [leafNode(key, H(key), false), second!, ...rest]],
      ['two siblings swapped', [second!, first!, ...rest]],
    ];
    for (const [what, altered] of misplaced) expect(verifyPrefixProof(root, key, H(key), altered), what).to.equal(false);

    const absent = randomBytes(32);
    const absence = tree.prove(absent).proof;
    expect(verifyPrefixProof(root, absent, undefined, absence)).to.equal(true);
    const [one, , ...above] = absence;
    const unparented: [string, ProofNode[]][] = [
      ['the first node twice', [one!, one!, ...above]],
      ['the empty node twice', [EMPTY_PROOF_NODE, EMPTY_PROOF_NODE, ...above]],
      ['a value of 31 bytes', [{ ...one!, value: one!.value!.subarray(0, 31) }, ...absence.slice(1)]],
    ];
    for (const [what, altered] of unparented) expect(verifyPrefixProof(root, absent, undefined, altered), what).to.equal(false);
  });

  it('takes keys and values of 32 bytes only, saying so, and verifies nothing for a root, key or value of another length', function () {
    const tree = new PrefixTree();
    const key = Buffer.alloc(32, 0x11);
    tree.set(key, H(key));
    const root = tree.root();
    for (const length of [31, 33]) {
      expect(() => tree.set(Buffer.alloc(length), H(key))).to.throw(RangeError, `32 bytes, not ${length}`);
      expect(() => tree.prove(Buffer.alloc(length))).to.throw(RangeError, `32 bytes, not ${length}`);
      expect(() => tree.set(Buffer.alloc(32), Buffer.alloc(length))).to.throw(RangeError, 'value is 32 bytes');
    }
    expect(tree.size).to.equal(1);
    expect(hex(tree.root())).to.equal(hex(root));

    const { proof } = tree.prove(key);
    expect(verifyPrefixProof(root, key, H(key), proof)).to.equal(true);
    const resized = (bytes: Buffer) => [bytes.subarray(0, 31), Buffer.concat([bytes, Buffer.of(0)])];
    for (const other of resized(root)) expect(verifyPrefixProof(other, key, H(key), proof), `root of ${other.length}`).to.equal(false);
    for (const other of resized(key)) expect(verifyPrefixProof(root, other, H(key), proof), `key of ${other.length}`).to.equal(false);
    for (const other of resized(H(key))) expect(verifyPrefixProof(root, key, other, proof), `value of ${other.length}`).to.equal(false);
  });

  it('says why it cannot read proof bytes: a node cut short, or no node (a label past 256 bits, a flag neither 0 nor 1)', function () {
    const tree = new PrefixTree();
    tree.set(Buffer.alloc(32, 0x11), H(Buffer.of(1)));
    const bytes = encodeProof(tree.prove(Buffer.alloc(32, 0x12)).proof);
    expect(() => decodeProof(bytes.subarray(0, bytes.length - 1))).to.throw(RangeError, 'ends inside a node');
    // Bit length 257, flag 0; bit length 0, flag 2.
    for (const head of [Buffer.of(0x01, 0x01, 0), Buffer.of(0, 0, 2)]) {
      expect(() => decodeProof(Buffer.concat([head, Buffer.alloc(100)])), hex(head)).to.throw(RangeError, 'not a prefix tree proof node');
    }
  });
});
