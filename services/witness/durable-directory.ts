/**
 * Directories and files of the witness that a power loss must not take back (its key and its state): a name is
 * durable once the directory that holds it is flushed, so a directory created is flushed into its parent, and its
 * parents that were created into theirs (the state's own writes flush only the state's directory,
 * witness-state-file.ts).
 */
import { mkdir, open } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** Where a platform or a file system refuses to open or flush a directory (Windows, some network file systems). */
const CANNOT_FLUSH = new Set(['EISDIR', 'EPERM', 'EACCES', 'EINVAL', 'ENOTSUP', 'EOPNOTSUPP']);

/** Flushes directory `path`, where the platform allows it. */
export async function flushDirectory(path: string): Promise<void> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if (CANNOT_FLUSH.has((error as NodeJS.ErrnoException).code ?? '')) return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    if (!CANNOT_FLUSH.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
  } finally {
    await handle.close();
  }
}

/** Creates `directory` and its missing parents (mode 700), each flushed into its parent. */
export async function makeDirectory(directory: string): Promise<void> {
  const first = await mkdir(directory, { recursive: true, mode: 0o700 });
  if (first === undefined) return;
  const top = resolve(first);
  for (let created = resolve(directory); ; created = dirname(created)) {
    await flushDirectory(dirname(created));
    if (created === top || created === dirname(created)) break;
  }
}
