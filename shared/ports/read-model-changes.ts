/** A projection's new checkpoint: its generation and position. */
export interface ReadModelMove {
  projection: string;
  generation: number;
  position: number;
}

/**
 * A move as heard. Only a hint of where to look: a replica reads the store to learn what it serves (it may skip
 * that read when it serves this position already). A projector of an earlier release names the projection alone.
 */
export type HeardMove = Pick<ReadModelMove, 'projection'> & Partial<ReadModelMove>;

/**
 * Word from the projectors that a read model moved, so that API replicas read a new snapshot at once instead of at
 * their next poll (issue 29: an append served on every replica within milliseconds). Best effort by design: a word
 * lost costs one poll interval, never a wrong answer, since every answer is judged from the snapshot it was read
 * from (docs/api.md, "Honest answers").
 */
export interface ReadModelChanges {
  /** Tells every subscribed process that a projection stored a new checkpoint. Never throws. */
  announce(move: ReadModelMove): void;
  /** Calls `listener` on every announcement, from any process; returns what ends it. */
  subscribe(listener: (move: HeardMove) => void): () => void;
  /**
   * Whether announcements are heard now (subscribed, and connected): while they are, a replica's poll only covers a
   * word lost, and may be slow.
   */
  hearing(): boolean;
  close(): Promise<void>;
}
