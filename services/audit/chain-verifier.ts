/**
 * Recomputes the audit chain of the event history, record after record in position order, and names the first
 * broken link. Pure: it never reads a store or a file, so the live check and the check of an export share it.
 *
 * What each link proves (see shared/adapters/sqlite/event-hash.ts for the byte layout):
 * - the stream hash covers an event's type, data and metadata and the previous revision of its stream, so an edit,
 *   or a removed or replaced earlier event of the stream, breaks it;
 * - the chain hash covers the stream hash and the previous event of the whole history, so removing any event (a
 *   stream's last one included), inserting one or moving one breaks the chain at the next event.
 * Nothing inside the chain shows the newest events cut off: only a head hash kept elsewhere does (`expectedHead`).
 */
import { chainHash, streamHash } from '../../shared/adapters/sqlite/event-hash.ts';
import { GENESIS, toHex, type AnchoredRecord } from './audit-record.ts';

interface ChainBreak {
  position: number;
  /** The broken event's stream and revision; null when the break is not one event (a missing recorded head). */
  stream: string | null;
  revision: number | null;
  problem: string;
}

export interface VerifyOutcome {
  checked: number;
  /** The last event checked and its chain hash (hex): the value auditors record to detect a later truncation. */
  head: { position: number; chainHash: string } | null;
  /** Where a file that starts mid-history was anchored (its first record's claimed previous chain hash). */
  anchor: { position: number; previousChainHash: string } | null;
  broken: ChainBreak | null;
}

export interface VerifierOptions {
  /** Accept the links an export claims where the file holds no predecessor (a file exported `--from` a position). */
  allowAnchors?: boolean;
  /** A head chain hash recorded earlier: the history must still contain it. */
  expectedHead?: Buffer;
}

interface StreamTip { revision: number; hash: Buffer }

export class ChainVerifier {
  private checked = 0;
  private previous: { position: number; chain: Buffer } | null = null;
  private readonly tips = new Map<string, StreamTip>();
  private anchor: VerifyOutcome['anchor'] = null;
  private broken: ChainBreak | null = null;
  private headSeen = false;
  /**
   * Whether every step between the positions checked so far was 1 (null before the second record). Only then is a
   * gap in positions a sign of a removed event: EventStoreDB positions are log offsets and always leave gaps.
   */
  private consecutive: boolean | null = null;

  constructor(private readonly options: VerifierOptions = {}) {}

  /** Checks the next record; returns the break when this record is the first broken link. */
  push(record: AnchoredRecord): ChainBreak | null {
    if (this.broken) return this.broken;
    const problem = this.problemOf(record);
    if (problem) {
      this.broken = { position: record.position, stream: record.stream, revision: record.revision, problem };
      return this.broken;
    }
    this.tips.set(record.stream, { revision: record.revision, hash: record.stream_hash });
    if (this.previous) this.consecutive = (this.consecutive ?? true) && record.position === this.previous.position + 1;
    this.previous = { position: record.position, chain: record.chain_hash };
    if (this.options.expectedHead?.equals(record.chain_hash)) this.headSeen = true;
    this.checked += 1;
    return null;
  }

  result(): VerifyOutcome {
    let broken = this.broken;
    const expected = this.options.expectedHead;
    if (!broken && expected && !this.headSeen) {
      const last = this.previous;
      broken = {
        position: last?.position ?? 0, stream: null, revision: null,
        problem: `the recorded head hash ${toHex(expected)} is not in the chain: the newest events were removed or the history was rewritten`,
      };
    }
    return {
      checked: this.checked,
      head: this.previous ? { position: this.previous.position, chainHash: toHex(this.previous.chain) } : null,
      anchor: this.anchor,
      broken,
    };
  }

  private problemOf(record: AnchoredRecord): string | null {
    if (this.previous && record.position <= this.previous.position) {
      return `position ${record.position} comes after position ${this.previous.position}: events were reordered or inserted`;
    }
    // First: the file's first record says whether the file is anchored mid-history, which the streams' anchors need.
    const previousChain = this.previousChainHash(record);
    const previousStream = this.previousStreamHash(record);
    if (typeof previousStream === 'string') return previousStream;
    const ownStream = streamHash(record.type, record.data, record.metadata, previousStream);
    if (!ownStream.equals(record.stream_hash)) {
      return 'type, data or metadata do not match the stored stream hash: the event was edited, or an earlier event of its stream was removed or replaced';
    }
    const ownChain = chainHash(ownStream, previousChain);
    if (!ownChain.equals(record.chain_hash)) return this.chainProblem(record);
    return null;
  }

  /** The hash this record's stream hash must follow, or why there is none. */
  private previousStreamHash(record: AnchoredRecord): Buffer | string {
    const tip = this.tips.get(record.stream);
    if (tip) {
      if (record.revision === tip.revision + 1) return tip.hash;
      return record.revision <= tip.revision
        ? `revision ${record.revision} comes after revision ${tip.revision} of its stream: events were reordered or inserted`
        : `revision ${record.revision} follows revision ${tip.revision} of its stream: ${record.revision - tip.revision - 1} event(s) were removed`;
    }
    if (record.revision === 0) return GENESIS;
    // A stream met first past its revision 0 is anchored on the hash the line claims only in a file that starts
    // mid-history (`export --from`): from the first event, every stream starts at 0, and one whose earlier events
    // are not there lost them (its last moved to another stream's name, say).
    if (this.options.allowAnchors && this.anchor !== null && record.previous_stream_hash) return record.previous_stream_hash;
    return `revision ${record.revision} is the first of its stream in the history: the earlier revisions were removed`;
  }

  private previousChainHash(record: AnchoredRecord): Buffer {
    if (this.previous) return this.previous.chain;
    const claimed = this.options.allowAnchors ? record.previous_chain_hash : undefined;
    if (claimed && !claimed.equals(GENESIS)) {
      this.anchor = { position: record.position, previousChainHash: toHex(claimed) };
      return claimed;
    }
    return GENESIS;
  }

  private chainProblem(record: AnchoredRecord): string {
    if (!this.previous) {
      return 'the chain hash does not start the chain: the first events of the history were removed or replaced';
    }
    const gap = this.consecutive && record.position - this.previous.position > 1
      ? ` (positions jump from ${this.previous.position} after running consecutively)`
      : '';
    return `the chain hash does not follow from the previous event at position ${this.previous.position}${gap}: an event between them was removed, or one was inserted or moved`;
  }
}
