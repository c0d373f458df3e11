/**
 * The chain verifier names the first broken link and what broke it: an edit, a removed, reordered or inserted event,
 * a cut-off head. It names a gap in positions only where positions ran consecutively (the SQLite store): on
 * EventStoreDB positions are log offsets, every step is a gap, and saying "positions jump" would mislead.
 */
import { expect } from 'chai';
import { chainHash, GENESIS_HASH, streamHash } from '../../../shared/adapters/sqlite/event-hash.ts';
import type { AnchoredRecord, AuditRecord } from '../../../services/audit/audit-record.ts';
import { ChainVerifier, type VerifierOptions, type VerifyOutcome } from '../../../services/audit/chain-verifier.ts';
import { hashedHistory } from './support/hashed-history.ts';

/** A correctly linked history of one event per stream at the given positions. */
function linkedHistory(positions: number[]): AuditRecord[] {
  let previousChain: Buffer = GENESIS_HASH;
  return positions.map((position, i) => {
    const data = JSON.stringify({ serial: `SN-${i}` });
    const metadata = '{"schema_version":1}';
    const stream_hash = streamHash('SerialRegistered', data, metadata, GENESIS_HASH);
    previousChain = chainHash(stream_hash, previousChain);
    return { position, stream: `serial-SN-${i}`, revision: 0, id: `id-${i}`, type: 'SerialRegistered', data, metadata, stream_hash, chain_hash: previousChain };
  });
}

function problemWithout(records: AuditRecord[], removed: number): string | undefined {
  const verifier = new ChainVerifier();
  for (const [i, record] of records.entries()) if (i !== removed && verifier.push(record)) break;
  return verifier.result().broken?.problem;
}

describe('chain verifier: gaps in positions', () => {
  it('on consecutive positions, names the jump left by a removed event', () => {
    expect(problemWithout(linkedHistory([1, 2, 3, 4, 5]), 3)).to.match(/does not follow from the previous event at position 3 \(positions jump from 3 after running consecutively\)/);
  });

  it('on log offsets, names the previous event and no jump', () => {
    const problem = problemWithout(linkedHistory([1_000, 1_731, 2_462, 3_193, 3_924]), 3);
    expect(problem).to.match(/does not follow from the previous event at position 2462: an event between them was removed/);
    expect(problem).not.to.contain('jump');
  });
});

/** Five events over two streams at consecutive positions: a0 b0 a1 a2 b1. */
const twoStreams = (): AuditRecord[] => hashedHistory([
  { position: 1, stream: 'a', revision: 0 }, { position: 2, stream: 'b', revision: 0 },
  { position: 3, stream: 'a', revision: 1 }, { position: 4, stream: 'a', revision: 2 },
  { position: 5, stream: 'b', revision: 1 },
]);

function verify(records: AnchoredRecord[], options: VerifierOptions = {}): VerifyOutcome {
  const verifier = new ChainVerifier(options);
  for (const record of records) verifier.push(record);
  return verifier.result();
}

describe('chain verifier: which link it names', () => {
  it('keeps the first break: events pushed after it are neither checked nor counted', () => {
    const records = twoStreams();
    records[1] = { ...records[1]!, data: '{"stream":"b","revision":7}' };
    const outcome = verify(records);
    expect(outcome.broken).to.include({ position: 2, stream: 'b', revision: 0 });
    expect(outcome.broken?.problem).to.match(/edited/);
    expect(outcome.checked).to.equal(1);
    expect(outcome.head?.position).to.equal(1);
  });

  it('refuses a position that does not increase, even when every hash links', () => {
    const outcome = verify(hashedHistory([
      { position: 1, stream: 'a', revision: 0 }, { position: 2, stream: 'b', revision: 0 }, { position: 2, stream: 'c', revision: 0 },
    ]));
    expect(outcome.broken).to.include({ position: 2, stream: 'c', revision: 0 });
    expect(outcome.broken?.problem).to.equal('position 2 comes after position 2: events were reordered or inserted');
  });

  it('names a revision missing from the middle of a stream and how many are missing', () => {
    const records = hashedHistory([0, 1, 2, 3, 4].map((revision) => ({ position: revision + 1, stream: 'a', revision })));
    const outcome = verify(records.filter((record) => record.revision !== 2 && record.revision !== 3));
    expect(outcome.broken).to.include({ position: 5, stream: 'a', revision: 4 });
    expect(outcome.broken?.problem).to.equal('revision 4 follows revision 1 of its stream: 2 event(s) were removed');
  });

  for (const [copied, tip] of [[0, 2], [4, 1]] as const) {
    it(`names an event of a stream copied in again later as reordered or inserted (revision ${twoStreams()[copied]!.revision} after revision ${tip})`, () => {
      const records = twoStreams();
      const copy = { ...records[copied]!, position: 6 };
      const outcome = verify([...records, copy]);
      expect(outcome.broken).to.include({ position: 6, stream: copy.stream, revision: copy.revision });
      expect(outcome.broken?.problem).to.equal(`revision ${copy.revision} comes after revision ${tip} of its stream: events were reordered or inserted`);
    });
  }

  it('without anchors, a stream whose first event in the history is not revision 0 lost its earlier revisions, whatever link the record claims', () => {
    const records = twoStreams();
    const outcome = verify([{ ...records[2]!, previous_stream_hash: records[0]!.stream_hash }]);
    expect(outcome.broken).to.include({ position: 3, stream: 'a', revision: 1 });
    expect(outcome.broken?.problem).to.equal('revision 1 is the first of its stream in the history: the earlier revisions were removed');
  });

  it('names a history whose first events were removed as not starting the chain', () => {
    const outcome = verify(twoStreams().slice(1));
    expect(outcome.broken).to.include({ position: 2, stream: 'b', revision: 0 });
    expect(outcome.broken?.problem).to.equal('the chain hash does not start the chain: the first events of the history were removed or replaced');
  });

  it('on consecutive positions with no jump, names the previous event and no jump', () => {
    const records = twoStreams();
    records[2] = { ...records[2]!, chain_hash: Buffer.alloc(32, 7) };
    const outcome = verify(records);
    expect(outcome.broken).to.include({ position: 3, stream: 'a', revision: 1 });
    expect(outcome.broken?.problem).to.equal('the chain hash does not follow from the previous event at position 2: an event between them was removed, or one was inserted or moved');
  });
});

describe('chain verifier: a head hash recorded earlier', () => {
  it('passes when the recorded head is an event of the history, not only its last', () => {
    const records = twoStreams();
    const outcome = verify(records, { expectedHead: records[2]!.chain_hash });
    expect(outcome.broken).to.equal(null);
    expect(outcome.checked).to.equal(5);
  });

  it('names the newest event checked when the recorded head is not in the chain', () => {
    const records = twoStreams();
    const head = Buffer.alloc(32, 9);
    const outcome = verify(records.slice(0, 4), { expectedHead: head });
    expect(outcome.broken).to.deep.equal({
      position: 4, stream: null, revision: null,
      problem: `the recorded head hash ${head.toString('hex')} is not in the chain: the newest events were removed or the history was rewritten`,
    });
  });

  it('reports an empty history against a recorded head as broken, not as a crash', () => {
    const outcome = verify([], { expectedHead: Buffer.alloc(32, 9) });
    expect(outcome.broken).to.include({ stream: null, revision: null });
    expect(outcome.broken?.problem).to.match(/is not in the chain/);
  });
});
