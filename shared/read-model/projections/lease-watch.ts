/**
 * Lease expiry as one process observes it (issue 40). A lease's `expires_at` is its holder's wall clock plus the ttl:
 * judged against a taker's wall clock, a holder whose clock ran 150 s ahead and died held every taker off for 150 s
 * more, and one whose clock ran behind could be taken over while alive. So no decision reads a written time: every
 * write of a lease (its taking, each renewal, its release) changes its marker (`renewals`, with owner and token), and
 * a lease has lapsed for this process once this process has seen the same marker for at least the lease's ttl on its
 * own monotonic clock. A process that never saw a lease (one just started) waits a full ttl like any other: a restart
 * is no reason to take over early. A released lease is free at once.
 *
 * The database server's clock would be the other honest judge, but no engine judges these writes: FerretDB 1.x's
 * conditional updates are not atomic across processes, so control documents are written as versions whose condition
 * each process evaluates itself (shared/adapters/mongodb-control-docs.ts), with nothing read from the server's clock.
 */
import type { LeaseDoc } from './control-docs.ts';

interface Sighting {
  marker: string;
  /** When this process first saw the lease with this marker (monotonic ms). */
  since: number;
}

/** What changes at every write of a lease; the written expiry too, for leases written before `renewals`. */
const markerOf = (lease: LeaseDoc): string => `${lease.owner}\u0000${lease.token}\u0000${lease.renewals ?? ''}\u0000${lease.expires_at}`;

/** A released lease (expiry 0): its owner let it go, anyone may take it at once. */
export const isReleased = (lease: LeaseDoc): boolean => lease.expires_at === 0;

/** The leases of one process, as it has seen them: what it read and what it wrote itself. */
export class LeaseWatch {
  readonly #seen = new Map<string, Sighting>();

  /** Records `lease` of `projection`, read or written at `now` (monotonic ms); how long it has been seen unchanged. */
  see(projection: string, lease: LeaseDoc, now: number): number {
    return this.seeMarker(projection, markerOf(lease), now);
  }

  /**
   * Records the marker of anything held by renewals (a lease, a rebuild's reservation: generations.ts) under `key`,
   * read at `now` (monotonic ms); how long this process has seen it unchanged.
   */
  seeMarker(key: string, marker: string, now: number): number {
    const seen = this.#seen.get(key);
    if (seen?.marker === marker) return now - seen.since;
    this.#seen.set(key, { marker, since: now });
    return 0;
  }

  /**
   * How long `lease`, read at `now`, still stands by this process's watch (ms; 0 once lapsed): its ttl (the one it
   * states, else `ttlMs`) less the time this process has seen it unchanged. Released: 0.
   */
  remaining(projection: string, lease: LeaseDoc, now: number, ttlMs: number): number {
    const unchanged = this.see(projection, lease, now);
    return isReleased(lease) ? 0 : Math.max(0, (lease.ttl_ms ?? ttlMs) - unchanged);
  }

  /**
   * Whether `lease` has had no live owner for its ttl: seen unchanged that long, released or not (a released lease
   * nobody took within a ttl is run by nobody).
   */
  ownerless(projection: string, lease: LeaseDoc, now: number, ttlMs: number): boolean {
    return this.see(projection, lease, now) >= (lease.ttl_ms ?? ttlMs);
  }
}
