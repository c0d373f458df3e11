/**
 * Which projections have a live owner, as one process sees their leases (lease-watch.ts): what the projector's
 * `/healthz` and the read API's `/readyz` report (issue 40). A projection nobody ever leased is not counted here:
 * it is not built, which both say apart.
 */
import type { ControlDoc } from '../../ports/read-store.ts';
import { leaseId, type LeaseDoc } from './control-docs.ts';
import type { LeaseWatch } from './lease-watch.ts';

/** The lease of each of `names` in `control` (one read of the control documents), undefined where none. */
export function leasesOf(control: Iterable<ControlDoc>, names: readonly string[]): Map<string, LeaseDoc | undefined> {
  const byId = new Map([...control].map((doc) => [doc._id, doc]));
  return new Map(names.map((name) => [name, byId.get(leaseId(name)) as LeaseDoc | undefined]));
}

/**
 * The projections among `leases` that `watch` has seen without a live owner for a whole lease (`ttlMs` where the
 * lease states none), as read at `now` (monotonic ms): their leases unchanged that long, held or released.
 */
export function ownerlessProjections(watch: LeaseWatch, leases: Map<string, LeaseDoc | undefined>, now: number, ttlMs: number): string[] {
  return [...leases].flatMap(([name, lease]) => (lease && watch.ownerless(name, lease, now, ttlMs) ? [name] : []));
}
