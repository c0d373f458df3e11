/**
 * How often an idle, live projection confirms its head again (ARCHITECTURE.md, "Known freshness"). Every API process
 * judges a read model fresh while it saw its confirmation change lately, on its own monotonic clock, and refuses a
 * verification past VERIFY_MAX_LAG_SECONDS (5 s by default): so the owner of a standing lease confirms again every
 * RECONFIRM_EVERY_MS, and what a replica sees is at most about that plus two of its polls old. A run that finds
 * nothing new stores nothing when this very process confirmed the same head less than RECONFIRM_AFTER_MS ago
 * (several signals come for each append). That is judged from what this process wrote and when, on its own clock:
 * a confirmation another projector wrote, whatever its clock says, is always confirmed again.
 */
import type { CheckpointState, HeadConfirmation } from '../shared/read-model/projections/control-docs.ts';

/** Period of the confirmations of an idle projection: one checkpoint write a second for each projection. */
export const RECONFIRM_EVERY_MS = 1_000;
const RECONFIRM_AFTER_MS = 250;

export class OwnConfirmations {
  readonly #made = new Map<string, { confirmation: HeadConfirmation; at: number }>();

  constructor(private readonly monotonic: () => number) {}

  /** Records that this process stored `confirmation` (if any) in the checkpoint of `projection` just now. */
  made(projection: string, confirmation: HeadConfirmation | undefined): void {
    if (confirmation) this.#made.set(projection, { confirmation, at: this.monotonic() });
  }

  /** Whether `checkpoint` still holds this process's own confirmation of `head`, stored less than RECONFIRM_AFTER_MS ago. */
  lately(projection: string, checkpoint: CheckpointState, head: number): boolean {
    const made = this.#made.get(projection);
    const stored = checkpoint.confirmed;
    return made !== undefined && stored?.head === head && made.confirmation.head === head && stored.at === made.confirmation.at
      && this.monotonic() - made.at < RECONFIRM_AFTER_MS;
  }
}
