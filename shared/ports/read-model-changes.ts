/**
 * Word from the projectors that a read model moved, so that API replicas read a new snapshot at once instead of at
 * their next poll (issue 29: an append served on every replica within milliseconds). Best effort by design: a word
 * lost costs one poll interval, never a wrong answer, since every answer is judged from the snapshot it was read
 * from (docs/api.md, "Honest answers").
 */
export interface ReadModelChanges {
  /** Tells every subscribed process that `projection` stored a new checkpoint. Never throws. */
  announce(projection: string): void;
  /** Calls `listener` with the projection's name on every announcement, from any process; returns what ends it. */
  subscribe(listener: (projection: string) => void): () => void;
  /**
   * Whether announcements are heard now (subscribed, and connected): while they are, a replica's poll only covers a
   * word lost, and may be slow.
   */
  hearing(): boolean;
  close(): Promise<void>;
}
