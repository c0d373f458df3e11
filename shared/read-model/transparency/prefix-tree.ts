/**
 * A Merkle prefix tree (a compressed binary Merkle trie) over 32-byte keys and 32-byte values: the serial index
 * (issue 45). Its hashing is that of filippo.io/torchwood's `prefix` package (v0.6.1, itself compatible with the akd
 * library's whatsapp_v1 configuration), with SHA-256 for its hash function, so that a verifier written elsewhere
 * checks our roots and proofs (test/interop/prefix/):
 *
 * - a label is a bit length and 32 bytes (the bits past the length zero); the label hash is H(uint32be(bits) || bytes);
 * - a node's hash is H(value || label hash); a leaf's value is its entry's, an inner node's H(left hash || right hash);
 * - the root's label is 0 bits; when one of its sides holds no key, that child is the "empty node", whose label is
 *   0 bits of bytes 0x01 and whose hash is H(H(H(0x00) || E) || E), E its label hash; the empty tree's root hash is
 *   H(H(0x00) || the root label's hash).
 *
 * A proof is the list of sibling nodes (label, hash) from the key's leaf, or from where it would be, up to the
 * root's child. Absence is proved by the two nodes neither of which is a prefix of the key though their parent is,
 * then the parent's siblings; when the key's side of the root is empty, those two are the empty node and the other
 * side (torchwood's Lookup answers the other side alone there, which its own verifier refuses). Those two nodes
 * carry their values too: a proof node's hash is taken as given, so without its value nothing binds its label to
 * it, and torchwood's VerifyNonMembershipProof accepts a present key's leaf under another label as proof that the key
 * is absent (test/interop/prefix-interop.test.ts shows it). Our verifier requires the two values. For the same
 * reason a sibling's label past the prefix of the node it hangs from is not bound (a proof so altered still checks,
 * and still proves what it proved: the key's leaf, or the two first nodes, are bound, and every parent's label).
 *
 * Kept in memory, hashes and keys as latin1 strings (one character a byte). A set only marks the nodes above the
 * key stale; hashes are computed when a root or a proof is asked, two 64-byte inputs a stale node (the label hashes
 * are kept with their nodes): a batch of changes hashes the nodes their paths share once (bench/serial-index.ts).
 */
import { hash } from 'node:crypto';

export const KEY_SIZE = 32;
const HASH_SIZE = 32;
const KEY_BITS = 8 * KEY_SIZE;

/** A node of a proof: its label (bit length, then the label's bytes) and hash. A 0-bit label is the empty node's. */
export interface ProofNode {
  readonly bits: number;
  /** The label's first ceil(bits / 8) bytes, the bits past `bits` zero. */
  readonly label: Uint8Array;
  readonly hash: Uint8Array;
  /**
   * The node's value, so that its hash binds its label: given for the two nodes an absence proof starts with (none
   * for the empty node, whose hash is fixed). See `verifyPrefixProof`.
   */
  readonly value?: Uint8Array;
}

/** A key's entry and the proof of it, or of its absence (`value` undefined). */
interface PrefixProof {
  readonly value: Uint8Array | undefined;
  readonly proof: readonly ProofNode[];
}

const sha256 = (input: Buffer): string => hash('sha256', input, 'binary');
const pair = Buffer.alloc(2 * HASH_SIZE);
/** H(a || b), both 32-byte latin1 strings. */
function hashPair(a: string, b: string): string {
  pair.write(a, 0, 'latin1');
  pair.write(b, HASH_SIZE, 'latin1');
  return sha256(pair);
}

/** The label's bytes: the first `bits` bits of `key` (latin1 or bytes), the rest zero. */
function labelBytes(bits: number, key: string | Uint8Array): Buffer {
  const bytes = Buffer.alloc(KEY_SIZE);
  const whole = bits >>> 3;
  if (typeof key === 'string') bytes.write(key.slice(0, whole), 0, 'latin1');
  else bytes.set(key.subarray(0, whole));
  if (bits & 7) {
    const byte = typeof key === 'string' ? key.charCodeAt(whole) : key[whole]!;
    bytes[whole] = byte & (0xff << (8 - (bits & 7)));
  }
  return bytes;
}

const labelInput = Buffer.alloc(4 + KEY_SIZE);
function labelHashOf(bits: number, bytes: Uint8Array): string {
  labelInput.writeUInt32BE(bits, 0);
  labelInput.set(bytes, 4);
  return sha256(labelInput);
}

const ZERO_HASH = sha256(Buffer.of(0));
const ROOT_LABEL_HASH = labelHashOf(0, Buffer.alloc(KEY_SIZE));
const EMPTY_LABEL_HASH = labelHashOf(0, Buffer.alloc(KEY_SIZE, 0x01));
const EMPTY_NODE_HASH = hashPair(hashPair(ZERO_HASH, EMPTY_LABEL_HASH), EMPTY_LABEL_HASH);
const EMPTY_ROOT_HASH = hashPair(ZERO_HASH, ROOT_LABEL_HASH);

/**
 * A leaf (`bits` 256, `value` its entry) or an inner node (`left` and `right` its children). `key` is the leaf's,
 * or for an inner node the key of a leaf below it, whose first `bits` bits are the node's label. One shape for
 * both, so that the walks stay monomorphic.
 */
interface TrieNode {
  readonly bits: number;
  readonly key: string;
  readonly labelHash: string;
  /** '' while stale: a node above a stale node is stale too. */
  hash: string;
  value: string;
  left: TrieNode | undefined;
  right: TrieNode | undefined;
}

const bitOf = (key: string, index: number): number => (key.charCodeAt(index >>> 3) >>> (7 - (index & 7))) & 1;

/** How many leading bits `a` and `b` share, at most `most`. */
function sharedBits(a: string, b: string, most: number): number {
  for (let i = 0; i < KEY_SIZE; i += 1) {
    const differ = a.charCodeAt(i) ^ b.charCodeAt(i);
    if (differ !== 0) return Math.min(most, 8 * i + Math.clz32(differ) - 24);
  }
  return most;
}

function leafOf(key: string, value: string): TrieNode {
  const labelHash = labelHashOf(KEY_BITS, Buffer.from(key, 'latin1'));
  return { bits: KEY_BITS, key, labelHash, hash: '', value, left: undefined, right: undefined };
}

/** The inner node of `bits` bits over `a` and `b`, which differ at bit `bits`. */
function innerOf(bits: number, a: TrieNode, b: TrieNode): TrieNode {
  const [left, right] = bitOf(a.key, bits) === 0 ? [a, b] : [b, a];
  return { bits, key: a.key, labelHash: labelHashOf(bits, labelBytes(bits, a.key)), hash: '', value: '', left, right };
}

const asKey = (key: Uint8Array): string => {
  if (key.length !== KEY_SIZE) throw new RangeError(`a prefix tree key is ${KEY_SIZE} bytes, not ${key.length}`);
  return Buffer.from(key).toString('latin1');
};

const proofNodeOf = (node: TrieNode | undefined): ProofNode => node === undefined
  ? { bits: 0, label: new Uint8Array(0), hash: Buffer.from(EMPTY_NODE_HASH, 'latin1') }
  : { bits: node.bits, label: labelBytes(node.bits, node.key).subarray(0, Math.ceil(node.bits / 8)), hash: Buffer.from(node.hash, 'latin1') };

/** `node`'s hash, computed with those of its stale descendants. */
function settled(node: TrieNode): string {
  if (node.hash === '') {
    node.hash = node.bits === KEY_BITS
      ? hashPair(node.value, node.labelHash)
      : hashPair(hashPair(settled(node.left!), settled(node.right!)), node.labelHash);
  }
  return node.hash;
}

/** A proof node with its value: a leaf's entry, an inner node's H(left hash || right hash). */
function boundProofNodeOf(node: TrieNode | undefined): ProofNode {
  if (node === undefined) return proofNodeOf(node);
  const value = node.bits === KEY_BITS ? node.value : hashPair(node.left!.hash, node.right!.hash);
  return { ...proofNodeOf(node), value: Buffer.from(value, 'latin1') };
}

export class PrefixTree {
  /** The root's two sides: the keys whose first bit is 0, and those whose first bit is 1. */
  private readonly sides: [TrieNode | undefined, TrieNode | undefined] = [undefined, undefined];
  /** '' while stale. */
  private rootHash = EMPTY_ROOT_HASH;
  private count = 0;

  get size(): number {
    return this.count;
  }

  root(): Buffer {
    if (this.rootHash === '') {
      const [left, right] = this.sides;
      this.rootHash = hashPair(hashPair(left ? settled(left) : EMPTY_NODE_HASH, right ? settled(right) : EMPTY_NODE_HASH), ROOT_LABEL_HASH);
    }
    return Buffer.from(this.rootHash, 'latin1');
  }

  /** Sets `key`'s value (both 32 bytes), adding the key or replacing its value. */
  set(keyBytes: Uint8Array, valueBytes: Uint8Array): void {
    if (valueBytes.length !== HASH_SIZE) throw new RangeError(`a prefix tree value is ${HASH_SIZE} bytes`);
    const key = asKey(keyBytes);
    const value = Buffer.from(valueBytes).toString('latin1');
    const side = bitOf(key, 0);
    const path: TrieNode[] = [];
    let node = this.sides[side];
    let replacement: TrieNode;
    for (;;) {
      if (node === undefined) {
        replacement = leafOf(key, value);
        this.count += 1;
        break;
      }
      if (node.bits === KEY_BITS && node.key === key) {
        node.value = value;
        node.hash = '';
        replacement = node;
        break;
      }
      const shared = sharedBits(node.key, key, node.bits);
      if (shared < node.bits) {
        replacement = innerOf(shared, node, leafOf(key, value));
        this.count += 1;
        break;
      }
      path.push(node);
      node = bitOf(key, node.bits) === 0 ? node.left : node.right;
    }
    // The new or changed node into its parent; every node above it stale.
    const parent = path[path.length - 1];
    if (parent === undefined) this.sides[side] = replacement;
    else if (bitOf(key, parent.bits) === 0) parent.left = replacement;
    else parent.right = replacement;
    for (let i = path.length - 1; i >= 0 && path[i]!.hash !== ''; i -= 1) path[i]!.hash = '';
    this.rootHash = '';
  }

  get(keyBytes: Uint8Array): Uint8Array | undefined {
    return this.prove(keyBytes).value;
  }

  /** `key`'s value and the proof of it, or the proof of its absence; siblings from the bottom up. */
  prove(keyBytes: Uint8Array): PrefixProof {
    this.root();
    const key = asKey(keyBytes);
    const side = bitOf(key, 0);
    const other = this.sides[1 - side];
    let node = this.sides[side];
    if (node === undefined) {
      return { value: undefined, proof: other === undefined ? [proofNodeOf(undefined)] : [proofNodeOf(undefined), boundProofNodeOf(other)] };
    }
    const siblings = [proofNodeOf(other)];
    const siblingNodes: (TrieNode | undefined)[] = [other];
    for (;;) {
      if (node.bits === KEY_BITS && node.key === key) {
        return { value: Buffer.from(node.value, 'latin1'), proof: siblings.reverse() };
      }
      if (node.bits === KEY_BITS || sharedBits(node.key, key, node.bits) < node.bits) break;
      const goLeft: boolean = bitOf(key, node.bits) === 0;
      const sibling = goLeft ? node.right : node.left;
      siblings.push(proofNodeOf(sibling));
      siblingNodes.push(sibling);
      node = goLeft ? node.left! : node.right!;
    }
    // Absent: `node` is not on the key's way, nor its sibling (the last pushed); both bound to their labels.
    siblings[siblings.length - 1] = boundProofNodeOf(siblingNodes[siblingNodes.length - 1]);
    siblings.push(boundProofNodeOf(node));
    return { value: undefined, proof: siblings.reverse() };
  }
}

/** A label while a proof is checked: the empty node's, or `bits` bits of `bytes` (32 bytes, the rest zero). */
interface CheckedNode {
  readonly empty: boolean;
  readonly bits: number;
  readonly bytes: Buffer;
  readonly hash: string;
}

const bitAt = (bytes: Uint8Array, index: number): number => (bytes[index >>> 3]! >>> (7 - (index & 7))) & 1;

/** Whether `label` is `key` or a prefix of it; the empty node's label is no key's prefix. */
function isPrefixOf(label: CheckedNode, key: Buffer): boolean {
  return !label.empty && labelBytes(label.bits, key).equals(label.bytes);
}

/** The parent of two nodes, at the longest prefix their labels share; undefined where no tree has such a parent. */
function parentOf(a: CheckedNode, b: CheckedNode): CheckedNode | undefined {
  if (a.empty) [a, b] = [b, a];
  if (a.empty) return undefined;
  let bits = 0;
  if (!b.empty) {
    const most = Math.min(a.bits, b.bits);
    while (bits < most && bitAt(a.bytes, bits) === bitAt(b.bytes, bits)) bits += 1;
    // Each child lies strictly below its parent, on its own side.
    if (bits === b.bits) return undefined;
  }
  if (bits === a.bits) return undefined;
  const bytes = labelBytes(bits, a.bytes);
  const [left, right] = bitAt(a.bytes, bits) === 0 ? [a, b] : [b, a];
  return { empty: false, bits, bytes, hash: hashPair(hashPair(left.hash, right.hash), labelHashOf(bits, bytes)) };
}

/** `node` checked, and its hash recomputed from its value and label: the empty node's hash is fixed. */
function boundNodeOf(node: ProofNode): CheckedNode | undefined {
  const checked = checkedNodeOf(node);
  if (checked === undefined) return undefined;
  if (checked.empty) return checked.hash === EMPTY_NODE_HASH ? checked : undefined;
  if (node.value?.length !== HASH_SIZE) return undefined;
  return hashPair(Buffer.from(node.value).toString('latin1'), labelHashOf(checked.bits, checked.bytes)) === checked.hash ? checked : undefined;
}

function checkedNodeOf(node: ProofNode): CheckedNode | undefined {
  if (node.hash.length !== HASH_SIZE || node.bits < 0 || node.bits > KEY_BITS || node.label.length !== Math.ceil(node.bits / 8)) return undefined;
  const bytes = Buffer.alloc(KEY_SIZE);
  bytes.set(node.label);
  if (!labelBytes(node.bits, bytes).equals(bytes)) return undefined;
  return { empty: node.bits === 0, bits: node.bits, bytes, hash: Buffer.from(node.hash).toString('latin1') };
}

/** Whether folding `node` with `siblings`, bottom up, gives the root `root`. */
function reachesRoot(node: CheckedNode, siblings: readonly ProofNode[], root: string): boolean {
  let at: CheckedNode | undefined = node;
  for (const sibling of siblings) {
    const checked = checkedNodeOf(sibling);
    at = checked && parentOf(at, checked);
    if (at === undefined) return false;
  }
  return !at.empty && at.bits === 0 && at.hash === root;
}

/**
 * Whether `proof` proves, under the tree root `root`, that `key` holds `value` (or, `value` undefined, that the
 * tree holds no `key`): the checks of torchwood's VerifyMembershipProof and VerifyNonMembershipProof, and for
 * absence the two first nodes' hashes recomputed from their values and labels, and each inner node's children
 * strictly below it.
 */
export function verifyPrefixProof(root: Uint8Array, keyBytes: Uint8Array, value: Uint8Array | undefined, proof: readonly ProofNode[]): boolean {
  if (root.length !== HASH_SIZE || keyBytes.length !== KEY_SIZE) return false;
  const rootHash = Buffer.from(root).toString('latin1');
  const key = Buffer.from(keyBytes);
  if (value !== undefined) {
    if (value.length !== HASH_SIZE) return false;
    const labelHash = labelHashOf(KEY_BITS, key);
    const leaf = { empty: false, bits: KEY_BITS, bytes: key, hash: hashPair(Buffer.from(value).toString('latin1'), labelHash) };
    return reachesRoot(leaf, proof, rootHash);
  }
  const [first, second] = proof.map(boundNodeOf);
  if (proof.length === 1) return first !== undefined && first.empty && first.hash === EMPTY_NODE_HASH && rootHash === EMPTY_ROOT_HASH;
  if (first === undefined || second === undefined || isPrefixOf(first, key) || isPrefixOf(second, key)) return false;
  const parent = parentOf(first, second);
  return parent !== undefined && isPrefixOf(parent, key) && reachesRoot(parent, proof.slice(2), rootHash);
}

/**
 * A proof as bytes, node after node: the label's bit length (uint16, big-endian), 1 when the node's value follows
 * (else 0), the label's ceil(bits / 8) bytes, the hash, then the value if any.
 */
export function encodeProof(proof: readonly ProofNode[]): Buffer {
  return Buffer.concat(proof.flatMap((node) => {
    const head = Buffer.alloc(3);
    head.writeUInt16BE(node.bits, 0);
    head[2] = node.value === undefined ? 0 : 1;
    return [head, node.label, node.hash, ...(node.value === undefined ? [] : [node.value])];
  }));
}

/** The proof `encodeProof` wrote; a RangeError for bytes it cannot have written. */
export function decodeProof(bytes: Uint8Array): ProofNode[] {
  const input = Buffer.from(bytes);
  const proof: ProofNode[] = [];
  let at = 0;
  const take = (length: number): Buffer => {
    if (at + length > input.length) throw new RangeError('a prefix tree proof ends inside a node');
    at += length;
    return input.subarray(at - length, at);
  };
  while (at < input.length) {
    const bits = take(2).readUInt16BE(0);
    const flag = take(1)[0];
    if (bits > KEY_BITS || (flag !== 0 && flag !== 1)) throw new RangeError('not a prefix tree proof node');
    const label = take(Math.ceil(bits / 8));
    const hash = take(HASH_SIZE);
    proof.push(flag === 1 ? { bits, label, hash, value: take(HASH_SIZE) } : { bits, label, hash });
  }
  return proof;
}
