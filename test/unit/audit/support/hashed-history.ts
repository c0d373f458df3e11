import { chainHash, GENESIS_HASH, streamHash } from '../../../../shared/adapters/sqlite/event-hash.ts';
import type { AuditRecord } from '../../../../services/audit/audit-record.ts';

export interface Planned { position: number; stream: string; revision: number }

/**
 * A history hashed by the layout of shared/adapters/sqlite/event-hash.ts, in the order given: each event's stream hash
 * follows the last one hashed for its stream, its chain hash the event before it. Tampering is done on the result.
 */
export function hashedHistory(plan: Planned[]): AuditRecord[] {
  const streamTips = new Map<string, Buffer>();
  let previousChain: Buffer = GENESIS_HASH;
  return plan.map(({ position, stream, revision }) => {
    const data = JSON.stringify({ stream, revision });
    const metadata = '{"schema_version":1}';
    const stream_hash = streamHash('Noted', data, metadata, streamTips.get(stream) ?? GENESIS_HASH);
    streamTips.set(stream, stream_hash);
    previousChain = chainHash(stream_hash, previousChain);
    return { position, stream, revision, id: `id-${position}`, type: 'Noted', data, metadata, stream_hash, chain_hash: previousChain };
  });
}
