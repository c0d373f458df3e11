/**
 * The serial index (issue 45, item 2): the registry's current status of each serial as an authenticated map, a
 * prefix tree (prefix-tree.ts) whose key for a serial is the first 32 bytes of its VRF output (vrf.ts, alpha the
 * serial's canonical form in UTF-8) and whose value is SHA-256 of a line naming the status. What the index publishes
 * (its root, and the proofs it hands out) names no serial: a key is found only by asking the service about a serial,
 * since the VRF's secret key computes it; and the VRF proof shows the asker that the key is the only one the serial
 * could have. A serial absent from the tree is NOT_FOUND.
 *
 * So an answer carries the serial, the status, the VRF proof and the index proof, and checks against the index's
 * root with the VRF's public key alone (`verifyIndexAnswer`); two answers for one serial under one root cannot both
 * check, whatever their statuses (test/unit/transparency/serial-index.test.ts).
 *
 * A checkpoint commits the index as it stood after exactly the events it counts, in an extension line of its note
 * (`indexExtension`): signed by the log's key, cosigned by its witnesses with the rest of the body (ARCHITECTURE.md,
 * "The serial index").
 */
import { createHash } from 'node:crypto';
import { SERIAL_PATTERN } from '../../events/common.ts';
import type { Checkpoint } from './checkpoint.ts';
import { decodeProof, encodeProof, KEY_SIZE, PrefixTree, verifyPrefixProof } from './prefix-tree.ts';
import { vrfVerify, type VrfKey } from './vrf.ts';

export type IndexedStatus = 'AUTHENTIC' | 'STOLEN';
export type IndexStatus = IndexedStatus | 'NOT_FOUND';

/** A leaf's value: SHA-256 of this line, so that a status can be told from its value by anyone. */
const statusValue = (status: IndexedStatus): Buffer =>
  createHash('sha256').update(`watchcat serial index v1\n${status}\n`).digest();

const STATUS_VALUES = new Map((['AUTHENTIC', 'STOLEN'] as const).map((status) => [statusValue(status).toString('hex'), status]));

const CANONICAL_SERIAL = new RegExp(SERIAL_PATTERN);

const alphaOf = (serial: string): Buffer => Buffer.from(serial, 'utf8');
const keyOf = (vrfOutput: Uint8Array): Buffer => Buffer.from(vrfOutput.subarray(0, KEY_SIZE));

/** An answer about one serial under an index root: what it says, and the two proofs of it (base64). */
export interface IndexAnswer {
  readonly serial: string;
  readonly status: IndexStatus;
  /** RFC 9381 proof (80 bytes) that the serial's key in the index is this VRF output's. */
  readonly vrf_proof: string;
  /** The prefix tree's proof of the serial's key holding the status's value, or of its absence (encodeProof). */
  readonly index_proof: string;
}

/**
 * A serial's VRF evaluation: its key in the index (the output's first 32 bytes) and, once an answer asked for it, the
 * proof of it (80 bytes). The key alone costs a quarter of the proof (bench/README.md): the index needs every
 * serial's key, answers the proofs of the serials asked about.
 */
export interface SerialVrf {
  readonly key: Buffer;
  readonly proof?: Buffer | undefined;
}

/**
 * Where a serial's VRF evaluation is kept once computed: it never changes under one VRF key, and computing it costs
 * milliseconds (bench/README.md), a hundred times a plain answer. An in-memory map unless given
 * (read-api/transparency/serial-vrf-file.ts keeps them across starts).
 */
export interface VrfMemo {
  get(serial: string): SerialVrf | undefined;
  remember(serial: string, evaluation: SerialVrf): void;
}

export const memoryVrfMemo = (): VrfMemo => {
  const kept = new Map<string, SerialVrf>();
  return { get: (serial) => kept.get(serial), remember: (serial, evaluation) => { kept.set(serial, evaluation); } };
};

/**
 * How many evaluations of serials only asked about (a NOT_FOUND answer's) are kept in memory, the most recently asked:
 * about 300 bytes each. A serial asked again (a buyer checking twice, an agent retrying) then costs a tree proof, not
 * a VRF proof (bench/README.md, "index-proof.ts").
 */
export const ASKED_KEPT = 10_000;

export class SerialIndex {
  private readonly tree = new PrefixTree();
  /** Evaluations of serials asked about and not held, in the order they were last asked (a Map's order). */
  private readonly asked = new Map<string, Required<SerialVrf>>();

  /**
   * `memo` keeps the evaluations of the serials the index holds, not of those only asked about: those stay in memory
   * alone (never in a memo's file), `askedKept` of them at most.
   */
  constructor(private readonly vrf: VrfKey, private readonly memo: VrfMemo = memoryVrfMemo(), private readonly askedKept = ASKED_KEPT) {}

  get size(): number {
    return this.tree.size;
  }

  get vrfPublicKey(): Uint8Array {
    return this.vrf.publicKey;
  }

  /** Whether `set(serial)` computes the serial's VRF output (it is not kept yet). */
  costs(serial: string): boolean {
    return this.memo.get(serial) === undefined && !this.asked.has(serial);
  }

  private keyOf(serial: string): Buffer {
    const known = this.memo.get(serial);
    if (known) return known.key;
    // A serial asked about before it was registered: its evaluation moves to the memo, computed once.
    const asked = this.asked.get(serial);
    this.asked.delete(serial);
    const evaluation = asked ?? { key: keyOf(this.vrf.output(alphaOf(serial))) };
    this.memo.remember(serial, evaluation);
    return evaluation.key;
  }

  /** The serial's VRF evaluation with its proof: kept in the memo when the serial is in the index, else among the asked. */
  private proved(serial: string): Required<SerialVrf> {
    const known = this.memo.get(serial);
    if (known?.proof) return known as Required<SerialVrf>;
    const asked = this.asked.get(serial);
    if (asked !== undefined) {
      this.asked.delete(serial);
      this.asked.set(serial, asked);
      return asked;
    }
    const { proof, output } = this.vrf.evaluate(alphaOf(serial));
    const evaluation = { key: keyOf(output), proof: Buffer.from(proof) };
    if (known) {
      this.memo.remember(serial, evaluation);
    } else {
      this.asked.set(serial, evaluation);
      if (this.asked.size > this.askedKept) this.asked.delete(this.asked.keys().next().value!);
    }
    return evaluation;
  }

  /** Sets a serial's status (its canonical form): registered or recovered AUTHENTIC, reported stolen STOLEN. */
  set(serial: string, status: IndexedStatus): void {
    this.tree.set(this.keyOf(serial), statusValue(status));
  }

  /** Whether the index holds the serial (a status change of one it does not hold is no registration). */
  holds(serial: string): boolean {
    const known = this.memo.get(serial);
    return known !== undefined && this.tree.get(known.key) !== undefined;
  }

  root(): Buffer {
    return this.tree.root();
  }

  /** The status of `serial` (its canonical form) with the proofs of it under `root()`. */
  answer(serial: string): IndexAnswer {
    const { key, proof: vrfProof } = this.proved(serial);
    const { value, proof } = this.tree.prove(key);
    const status = value === undefined ? 'NOT_FOUND' : STATUS_VALUES.get(Buffer.from(value).toString('hex'));
    if (status === undefined) throw new Error('the serial index holds a value that is no status');
    return { serial, status, vrf_proof: vrfProof.toString('base64'), index_proof: encodeProof(proof).toString('base64') };
  }
}

/** Whether `answer` is proved under the index root `root` and the VRF public key `vrfPublicKey`. */
export function verifyIndexAnswer(vrfPublicKey: Uint8Array, root: Uint8Array, answer: IndexAnswer): boolean {
  if (!(['AUTHENTIC', 'STOLEN', 'NOT_FOUND'] as unknown[]).includes(answer.status)) return false;
  // Only a canonical serial: another spelling of one (rg-1001 for RG-1001) is another VRF input, proved absent.
  if (!CANONICAL_SERIAL.test(answer.serial)) return false;
  const output = vrfVerify(vrfPublicKey, alphaOf(answer.serial), Buffer.from(answer.vrf_proof, 'base64'));
  if (output === undefined) return false;
  let proof;
  try {
    proof = decodeProof(Buffer.from(answer.index_proof, 'base64'));
  } catch {
    return false;
  }
  const value = answer.status === 'NOT_FOUND' ? undefined : statusValue(answer.status);
  return verifyPrefixProof(root, keyOf(output), value, proof);
}

const EXTENSION = 'watchcat/serial-index/v1';

/** What a checkpoint commits of the index: its root, and the VRF key its serials' keys are computed with. */
interface IndexCommitment {
  readonly root: Uint8Array;
  readonly vrfPublicKey: Uint8Array;
}

/** The checkpoint extension line committing the index: `watchcat/serial-index/v1 <root> <VRF public key>`, base64. */
export const indexExtension = ({ root, vrfPublicKey }: IndexCommitment): string =>
  `${EXTENSION} ${Buffer.from(root).toString('base64')} ${Buffer.from(vrfPublicKey).toString('base64')}`;

/** The index a checkpoint commits, from its extension lines; undefined when it commits none, or more than one. */
export function indexCommitmentOf(checkpoint: Checkpoint): IndexCommitment | undefined {
  const lines = (checkpoint.extensions ?? []).filter((line) => line.startsWith(`${EXTENSION} `));
  if (lines.length !== 1) return undefined;
  const [, root = '', key = ''] = lines[0]!.split(' ');
  const rootBytes = Buffer.from(root, 'base64');
  const keyBytes = Buffer.from(key, 'base64');
  const canonical = rootBytes.toString('base64') === root && keyBytes.toString('base64') === key;
  return canonical && rootBytes.length === 32 && keyBytes.length === 32 && lines[0]!.split(' ').length === 3
    ? { root: rootBytes, vrfPublicKey: keyBytes }
    : undefined;
}
