/**
 * The version of the projections' code a snapshot was built by: a hash of the source of every module the
 * projections are made of (the projections, the read models they write, the events and upcasters they read, the
 * text folding they index with, the filters they match with, the port's write rules). Derived rather than a constant to bump, because nobody forgets to derive it: any
 * change there, even a comment, invalidates the snapshots, which costs one full replay at the next start, while a
 * forgotten bump would serve documents the new code would not build. Compiled (dist) and source (tsx) runs hash
 * different files, so they never share a snapshot either.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folders under shared/ the projections' code comes from: every one they import, directly or not (a test checks it). */
export const SOURCE_FOLDERS: readonly string[] = [
  'read-model/projections', 'read-model/documents', 'read-model/query', 'read-model/transparency', 'events', 'text', 'ports',
];

let computed: string | undefined;

export function projectionsVersion(): string {
  if (computed) return computed;
  const hash = createHash('sha256');
  for (const folder of SOURCE_FOLDERS) {
    const dir = fileURLToPath(new URL(`../../${folder}/`, import.meta.url));
    const files = readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
      .sort();
    for (const file of files) hash.update(`${folder}/${file}\0`).update(readFileSync(join(dir, file))).update('\0');
  }
  computed = hash.digest('hex').slice(0, 32);
  return computed;
}
