/**
 * The chain verifier names a gap in positions only where positions ran consecutively (the SQLite store): on
 * EventStoreDB positions are log offsets, every step is a gap, and saying "positions jump" would mislead.
 */
import { expect } from 'chai';
import { chainHash, GENESIS_HASH, streamHash } from '../../../shared/adapters/sqlite/event-hash.ts';
import type { AuditRecord } from '../../../services/audit/audit-record.ts';
import { ChainVerifier } from '../../../services/audit/chain-verifier.ts';

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
