/**
 * Where a rewritten history lies, from what a monitor kept: the checkpoints it saw, in the order it saw them (each
 * extending the one before, as it checked), and a test of whether the service's new tree extends one of them. The
 * new tree extends every seen tree up to some size and none after it (a tree that extends a larger seen tree extends
 * its prefixes too), so a bisection finds the last seen tree it extends and the first it does not, in O(log c)
 * tests of the c kept: every changed, removed, moved or inserted leaf lies between their sizes.
 */
import { lastHolding } from './bisect.ts';

export interface SeenTree { size: number; seen_at: string }

/** The last seen tree the new one extends (none: not even the first), and the first it does not. */
interface Rewrite<T extends SeenTree> { kept?: T; broken: T }

/** Where the rewrite lies among `seen` (ascending sizes); undefined when the new tree extends all of them. */
export async function locateRewrite<T extends SeenTree>(seen: readonly T[], extendsTree: (tree: T) => Promise<boolean>): Promise<Rewrite<T> | undefined> {
  // -1 stands for the empty tree, which every tree extends.
  const kept = await lastHolding(-1, seen.length - 1, (i) => extendsTree(seen[i]!));
  const broken = kept + 1;
  if (broken === seen.length) return undefined;
  return kept === -1 ? { broken: seen[broken]! } : { kept: seen[kept]!, broken: seen[broken]! };
}

/** `rewrite` as the sentence a monitor's failure ends with. */
export function describeRewrite({ kept, broken }: Rewrite<SeenTree>): string {
  const first = kept?.size ?? 0;
  const leaves = broken.size - 1 === first ? `leaf ${first}` : `leaves ${first} to ${broken.size - 1}`;
  const after = kept ? `it extends the tree of ${kept.size} leaves seen at ${kept.seen_at}, not the one of ${broken.size} seen at ${broken.seen_at}`
    : `it extends no tree this monitor saw, not even the one of ${broken.size} leaves seen at ${broken.seen_at}`;
  return `${after}: the history was rewritten in ${leaves} (leaf i is the (i+1)-th event in store order)`;
}
