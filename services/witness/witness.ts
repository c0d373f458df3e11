/**
 * A C2SP tlog-witness (docs/audit.md, "Witnesses"): it keeps, per log origin, the last tree it cosigned, and cosigns
 * a new checkpoint of that log only when it verifies under the log's key and extends that tree by an RFC 9162
 * consistency proof. What it answers follows the spec's `add-checkpoint`: 400 for a request it cannot read, 404 for
 * an unknown origin, 403 for a checkpoint no trusted key signed (or a trusted key's signature that fails), 409 with
 * its size when the request's old size is not the size it holds, 422 for a proof that does not verify or another
 * root at the size it holds (a fork), 200 with its `cosignature/v1` line otherwise.
 *
 * Pure but for its store (a port): one request is checked and stored at a time, so that two requests racing cannot
 * roll its tree back (the spec's race between checking and persisting).
 */
import { createHash, type KeyObject } from 'node:crypto';
import { parseCheckpoint, type Checkpoint } from '../../shared/read-model/transparency/checkpoint.ts';
import { cosign, cosignerKey } from '../../shared/read-model/transparency/cosignature.ts';
import { EMPTY_ROOT, HASH_SIZE, verifyConsistency, type Hash } from '../../shared/read-model/transparency/merkle.ts';
import {
  isBy, NoteError, parseNote, signatureLine, verifies, type Verifier,
} from '../../shared/read-model/transparency/signed-note.ts';

/** A witness that cannot start: its key or its state cannot be had, or another process holds its state. */
export class WitnessError extends Error {}

/** The tree a witness last cosigned for one origin, and the note it answers monitors with. */
export interface WitnessedTree {
  size: number;
  /** Base64. */
  root: string;
  /** The checkpoint with the log's signatures the witness verified and its own cosignature. */
  note: string;
}

/** Where a witness keeps its trees: `put` resolves once the tree is durable, before any answer is sent. */
export interface WitnessStore {
  get(origin: string): WitnessedTree | undefined;
  put(origin: string, tree: WitnessedTree): Promise<void>;
}

export type AddCheckpointAnswer =
  | { status: 200; cosignatures: string }
  | { status: 409; size: number }
  | { status: 400 | 403 | 404 | 422; reason: string; origin?: string; fork?: boolean };

interface WitnessOptions {
  /** The witness's name, as its cosignature lines carry it. */
  name: string;
  key: KeyObject;
  /** The verifier keys of the logs it witnesses (their names are the logs' origins). */
  logs: readonly Verifier[];
  store: WitnessStore;
  /** Unix seconds, for the cosignature's timestamp. */
  now?: () => number;
}

/** The spec's cap on a request's consistency proof. */
const MAX_PROOF_LINES = 63;
const OLD_SIZE = /^old (0|[1-9]\d*)$/;

/** The SHA-256 of an origin in lowercase hex: the path segment under which monitors ask for a log's checkpoint. */
export const originHash = (origin: string): string => createHash('sha256').update(origin).digest('hex');

interface AddCheckpointRequest { oldSize: number; proof: Hash[]; note: string }

/** The request's parts, or the reason it is malformed. */
function readRequest(body: string): AddCheckpointRequest | string {
  const split = body.indexOf('\n\n');
  if (split === -1) return 'expected an old size line, proof lines, an empty line and a checkpoint';
  const [first = '', ...lines] = body.slice(0, split).split('\n');
  const old = OLD_SIZE.exec(first);
  if (!old || !Number.isSafeInteger(Number(old[1]))) return 'the first line must be "old <size>" in decimal';
  if (lines.length > MAX_PROOF_LINES) return `at most ${MAX_PROOF_LINES} consistency proof lines`;
  const proof: Hash[] = [];
  for (const line of lines) {
    const hash = Buffer.from(line, 'base64');
    if (hash.length !== HASH_SIZE || hash.toString('base64') !== line) return 'each proof line must be one hash in base64';
    proof.push(hash);
  }
  return { oldSize: Number(old[1]), proof, note: body.slice(split + 2) };
}

export class Witness {
  readonly verifierKey: string;
  private readonly logs = new Map<string, Verifier[]>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: WitnessOptions) {
    this.verifierKey = cosignerKey(options.name, options.key);
    for (const log of options.logs) this.logs.set(log.name, [...(this.logs.get(log.name) ?? []), log]);
  }

  /** The origins it witnesses. */
  origins(): string[] {
    return [...this.logs.keys()];
  }

  /** The latest cosigned checkpoint of the log whose origin hashes to `hash`, for monitors; undefined before one. */
  checkpoint(hash: string): string | undefined {
    const origin = this.origins().find((known) => originHash(known) === hash);
    return origin === undefined ? undefined : this.options.store.get(origin)?.note;
  }

  /** One `add-checkpoint` request, checked and stored after every request before it. */
  addCheckpoint(body: string): Promise<AddCheckpointAnswer> {
    const answer = this.queue.then(() => this.check(body));
    this.queue = answer.catch(() => undefined);
    return answer;
  }

  private async check(body: string): Promise<AddCheckpointAnswer> {
    const request = readRequest(body);
    if (typeof request === 'string') return { status: 400, reason: request };
    let opened;
    try {
      opened = parseNote(request.note);
    } catch (error) {
      return { status: 400, reason: (error as NoteError).message };
    }
    const { text, signatures } = opened;
    const origin = text.slice(0, text.indexOf('\n'));
    const trusted = this.logs.get(origin);
    if (trusted === undefined) return { status: 404, reason: 'unknown log origin', origin };
    // Lines of other keys (other witnesses' cosignatures among them) are left aside, as the spec asks. A line of the
    // log's repeated counts once: neither checked nor kept again (each other line of its keys must verify).
    const lines = signatures.map(signatureLine);
    const own = signatures.filter((signature, at) => trusted.some((verifier) => isBy(signature, verifier)) && lines.indexOf(lines[at]!) === at);
    if (own.length === 0) return { status: 403, reason: 'no signature by a key of the log', origin };
    if (!own.every((signature) => verifies(text, signature, trusted.find((verifier) => isBy(signature, verifier))!))) {
      return { status: 403, reason: 'a signature by a key of the log does not verify', origin };
    }
    let checkpoint: Checkpoint;
    try {
      checkpoint = parseCheckpoint(text);
    } catch (error) {
      return { status: 400, reason: (error as Error).message, origin };
    }
    const refusal = this.refusal(origin, request, checkpoint, text);
    if (refusal) return refusal;
    const time = (this.options.now ?? (() => Math.floor(Date.now() / 1000)))();
    const cosignature = cosign(text, this.options.name, this.options.key, time);
    const note = `${text}\n${own.map(signatureLine).join('')}${cosignature}`;
    await this.options.store.put(origin, { size: checkpoint.size, root: Buffer.from(checkpoint.root).toString('base64'), note });
    return { status: 200, cosignatures: cosignature };
  }

  /** Why `checkpoint` does not extend the tree held for `origin`, as the spec answers it; undefined when it does. */
  private refusal(origin: string, { oldSize, proof }: AddCheckpointRequest, checkpoint: Checkpoint, text: string): AddCheckpointAnswer | undefined {
    const { size, root } = checkpoint;
    if (oldSize > size) return { status: 400, reason: `old size ${oldSize} is larger than the checkpoint's ${size}`, origin };
    if (size === 0 && !Buffer.from(root).equals(EMPTY_ROOT)) return { status: 422, reason: 'an empty tree with a root that is not the empty root', origin };
    const held = this.options.store.get(origin);
    const heldSize = held?.size ?? 0;
    if (oldSize !== heldSize) return { status: 409, size: heldSize };
    // The size held, the empty tree's included: only the very body cosigned, again.
    if (held !== undefined && size === oldSize) {
      if (held.root !== Buffer.from(root).toString('base64')) {
        return { status: 422, reason: `fork: another root for the tree of ${size} leaves than the one cosigned (${held.root})`, origin, fork: true };
      }
      // The same tree with other extension lines (the serial index's root) is a fork too: cosigned, the log could show
      // two indexes, and so two statuses of one serial, at one checkpoint.
      if (parseNote(held.note).text !== text) {
        return { status: 422, reason: `fork: another checkpoint body for the tree of ${size} leaves than the one cosigned (its extension lines differ)`, origin, fork: true };
      }
      return proof.length === 0 ? undefined : { status: 422, reason: 'a proof between equal sizes must be empty', origin };
    }
    if (oldSize === 0) return proof.length === 0 ? undefined : { status: 422, reason: 'a proof from the empty tree must be empty', origin };
    const heldRoot = Buffer.from(held!.root, 'base64');
    return verifyConsistency(oldSize, size, heldRoot, root, proof)
      ? undefined
      : { status: 422, reason: `the consistency proof from ${oldSize} to ${size} leaves does not verify against the tree cosigned: a fork, or a bad proof`, origin, fork: true };
  }
}
