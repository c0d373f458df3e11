/**
 * RFC 9162 section 2.1 math over stored hashes, against the RFC's recursive definitions written out in this test
 * over the list of leaves (no stored hashes), and against values known from RFC 6962 implementations.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { MemoryTree } from '../../../shared/read-model/transparency/memory-tree.ts';
import { completedSubtrees, EMPTY_ROOT, leafHash, ProofRangeError, verifyConsistency, verifyInclusion } from '../../../shared/read-model/transparency/merkle.ts';

const sha256 = (...parts: Uint8Array[]) => parts.reduce((h, p) => h.update(p), createHash('sha256')).digest();
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

// RFC 9162 2.1.1, 2.1.3.1 and 2.1.4.1, literally: k is the largest power of two smaller than n.
const k = (n: number) => 2 ** Math.ceil(Math.log2(n) - 1);
function mth(d: Buffer[]): Buffer {
  if (d.length === 0) return sha256();
  if (d.length === 1) return sha256(Buffer.of(0), d[0]!);
  return sha256(Buffer.of(1), mth(d.slice(0, k(d.length))), mth(d.slice(k(d.length))));
}
function path(m: number, d: Buffer[]): Buffer[] {
  if (d.length <= 1) return [];
  const s = k(d.length);
  return m < s ? [...path(m, d.slice(0, s)), mth(d.slice(s))] : [...path(m - s, d.slice(s)), mth(d.slice(0, s))];
}
function subproof(m: number, d: Buffer[], b: boolean): Buffer[] {
  if (m === d.length) return b ? [] : [mth(d)];
  const s = k(d.length);
  return m <= s ? [...subproof(m, d.slice(0, s), b), mth(d.slice(s))] : [...subproof(m - s, d.slice(s), false), mth(d.slice(0, s))];
}

const entries = (n: number) => Array.from({ length: n }, (_, i) => Buffer.from(`event ${i}`));
const treeOf = (d: Buffer[]) => {
  const tree = new MemoryTree();
  for (const entry of d) tree.append(entry);
  return tree;
};

describe('transparency log: RFC 9162 Merkle math', function () {
  it('hashes the empty tree and an empty leaf as RFC 6962 logs do', function () {
    expect(hex(EMPTY_ROOT)).to.equal('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    // The leaf hash of an empty entry, a vector of RFC 6962 implementations (Certificate Transparency's tests).
    expect(hex(leafHash(new Uint8Array()))).to.equal('6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d');
    expect(hex(new MemoryTree().root())).to.equal(hex(EMPTY_ROOT));
  });

  it('hashes an entry given as text as its UTF-8 bytes', function () {
    const text = '{"data":{"name":"Régate Un"}}';
    expect(hex(leafHash(text))).to.equal(hex(sha256(Buffer.of(0), Buffer.from(text, 'utf8'))));
    expect(hex(leafHash(Buffer.from(text, 'utf8')))).to.equal(hex(sha256(Buffer.of(0), Buffer.from(text, 'utf8'))));
  });

  it('gives the root, inclusion and consistency proofs of the RFC\'s definitions for every size up to 40', function () {
    const d = entries(40);
    const tree = treeOf(d);
    for (let n = 1; n <= 40; n += 1) {
      expect(hex(tree.root(n)), `root of ${n}`).to.equal(hex(mth(d.slice(0, n))));
      for (let m = 0; m < n; m += 1) expect(tree.inclusion(m, n).map(hex), `leaf ${m} of ${n}`).to.deep.equal(path(m, d.slice(0, n)).map(hex));
      for (let m = 1; m <= n; m += 1) expect(tree.consistency(m, n).map(hex), `${m} to ${n}`).to.deep.equal(subproof(m, d.slice(0, n), true).map(hex));
    }
  });

  it('stores at most 1 + log2(n) hashes per append, 2n - 1 for a complete tree of n leaves', function () {
    const tree = new MemoryTree();
    let stored = 0;
    for (let n = 0; n < 1024; n += 1) {
      const added = completedSubtrees(tree, n, leafHash(Buffer.from(`event ${n}`))).length;
      expect(added, `append ${n}`).to.be.at.most(1 + Math.log2(n + 1));
      stored += added;
      tree.append(Buffer.from(`event ${n}`));
    }
    expect(stored).to.equal(2047);
  });

  /**
   * How many hashes RFC 9162's PATH(m, D[n]) holds (2.1.3.1), counted from its definition: a proof of leaf m checked
   * as the proof of a tree of another size is refused when that size's path has another length.
   */
  const pathLength = (m: number, n: number): number => {
    if (n === 1) return 0;
    const k = 2 ** Math.floor(Math.log2(n - 1));
    return 1 + (m < k ? pathLength(m, k) : pathLength(m - k, n - k));
  };

  it('verifies every proof it gives and refuses it for another leaf, size or root (random trees)', function () {
    fc.assert(fc.property(fc.integer({ min: 1, max: 300 }), fc.nat(), fc.nat(), fc.integer({ min: 1, max: 320 }), (n, a, b, otherSize) => {
      const d = entries(n);
      const tree = treeOf(d);
      const m = a % n;
      const root = tree.root(n);
      const proof = tree.inclusion(m, n);
      expect(verifyInclusion(m, n, leafHash(d[m]!), proof, root)).to.equal(true);
      expect(verifyInclusion(m, n, leafHash(Buffer.from('forged')), proof, root)).to.equal(false);
      if (n > 1) expect(verifyInclusion((m + 1) % n, n, leafHash(d[m]!), proof, root)).to.equal(false);
      if (otherSize > m && pathLength(m, otherSize) !== pathLength(m, n)) {
        expect(verifyInclusion(m, otherSize, leafHash(d[m]!), proof, root), `leaf ${m} of ${n} checked as of ${otherSize}`).to.equal(false);
      }
      const first = 1 + (b % n);
      const consistency = tree.consistency(first, n);
      expect(verifyConsistency(first, n, tree.root(first), root, consistency)).to.equal(true);
      if (first < n) {
        expect(verifyConsistency(first, n, leafHash(Buffer.from('forged')), root, consistency)).to.equal(false);
        expect(verifyConsistency(first, n, tree.root(first), tree.root(first), consistency)).to.equal(false);
      }
    }), { numRuns: 60 });
  });

  it('refuses proofs outside the tree with a range error', function () {
    const tree = treeOf(entries(5));
    expect(() => tree.inclusion(5, 5)).to.throw(ProofRangeError);
    expect(() => tree.inclusion(0, 6)).to.throw(ProofRangeError);
    expect(() => tree.inclusion(-1, 5)).to.throw(ProofRangeError);
    expect(() => tree.consistency(0, 5)).to.throw(ProofRangeError);
    expect(() => tree.consistency(4, 3)).to.throw(ProofRangeError);
    expect(() => tree.consistency(3, 6)).to.throw(ProofRangeError);
    expect(() => tree.root(6)).to.throw(ProofRangeError);
  });

  it('refuses an inclusion proof for a leaf outside the tree, a consistency proof from no leaves or from a larger tree, and one with hashes past its end', function () {
    const d = entries(4);
    const leaf = (i: number) => sha256(Buffer.of(0), d[i]!);
    // Each check below is given the RFC's own proof and root, so only the range or the proof's length can refuse it.
    expect(verifyInclusion(4, 4, leaf(3), path(3, d), mth(d)), 'index = size').to.equal(false);
    expect(verifyInclusion(-1, 4, leaf(0), path(0, d), mth(d)), 'index < 0').to.equal(false);
    expect(verifyConsistency(0, 4, EMPTY_ROOT, mth(d), subproof(0, d, true)), 'from 0 leaves').to.equal(false);
    expect(verifyConsistency(4, 3, mth(d), mth(d.slice(0, 3)), subproof(3, d, true)), 'from a larger tree').to.equal(false);
    const proof = subproof(3, d, true);
    expect(verifyConsistency(3, 4, mth(d.slice(0, 3)), mth(d), proof), 'the proof itself').to.equal(true);
    expect(verifyConsistency(3, 4, mth(d.slice(0, 3)), mth(d), [...proof, sha256()]), 'a hash past its end').to.equal(false);
  });

  it('keeps every hash once a level outgrows its first 1,024: the root and proofs of 2,050 leaves are the RFC\'s', function () {
    // 2,050 leaves push 2,050 hashes on level 0 and 1,025 on level 1: both grow past their first allocation.
    const d = entries(2050);
    const tree = treeOf(d);
    for (const size of [1024, 1025, 2048, 2050]) expect(hex(tree.root(size)), `root(${size})`).to.equal(hex(mth(d.slice(0, size))));
    expect(tree.inclusion(1030, 2050).map(hex)).to.deep.equal(path(1030, d).map(hex));
    expect(tree.consistency(1025, 2050).map(hex)).to.deep.equal(subproof(1025, d, true).map(hex));
  });
});
