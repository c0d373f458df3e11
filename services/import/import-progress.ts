/** How an import tells its caller how far it is, and what it did. */
export type ImportPhase = 'collections' | 'watches' | 'configurators' | 'serials';

/** An import's two passes over the file: rehearsed whole, appending nothing, then imported. */
export type ImportPass = 'checking' | 'importing';

export interface ImportProgress {
  pass: ImportPass;
  phase: ImportPhase;
  /** Entries of the file handled so far in this pass, over all phases. */
  done: number;
  total: number;
}

export type OnProgress = (progress: ImportProgress) => void;

export interface ImportReport {
  /** Commands that appended events; 0 when the store already held the file's state. */
  commands: number;
  /** Events appended. */
  events: number;
  /** Position of the last appended event, or the store's head when nothing was appended. */
  position: number;
  /** Differences the import could not apply (e.g. a watch of the file that was withdrawn). */
  warnings: string[];
}

/** Adds up the command results of one import. */
export class ImportTally {
  commands = 0;
  events = 0;
  position = 0;
  readonly warnings: string[] = [];

  record(result: { appended: number; position: number }): void {
    if (result.appended === 0) return;
    this.commands += 1;
    this.events += result.appended;
    this.position = Math.max(this.position, result.position);
  }
}
