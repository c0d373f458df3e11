/** The latest signed checkpoint kept in `DATA_DIR/transparency/checkpoint.note`, for the check at the next start. */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SignedCheckpointRecord } from './log-publisher.ts';

export function checkpointFile(dataDir: string): SignedCheckpointRecord {
  const dir = join(dataDir, 'transparency');
  const file = join(dir, 'checkpoint.note');
  return {
    load: () => (existsSync(file) ? readFileSync(file, 'utf8') : undefined),
    save: (note) => {
      // The folder also holds the serials' VRF memo (serial-vrf-file.ts): owner-only, whichever makes it first.
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      // Written aside then renamed: a crash mid-write leaves the previous checkpoint whole.
      writeFileSync(`${file}.tmp`, note);
      renameSync(`${file}.tmp`, file);
    },
  };
}
