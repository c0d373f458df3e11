/**
 * The snapshot file: one JSON value a line (a header, then records), and a last line with the number of lines and
 * the SHA-256 of everything before it, so a truncated or altered file is told from a whole one. Written to a
 * temporary file (mode 0600) that is synced and then renamed over the previous snapshot: a crash mid-write leaves
 * the previous one whole. Written in chunks awaited one after the other, so a large state never holds the event
 * loop for long; read line by line, so its size is not bound by the longest string V8 can hold.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';

export interface SnapshotWriteOptions {
  /** Records serialized per write; default 2,000. */
  chunkRecords?: number;
  /** Called before each chunk is written (tests simulate a crash by throwing). */
  beforeChunk?: (index: number) => void;
}

export async function writeSnapshotFile(
  file: string, header: unknown, records: readonly unknown[], options: SnapshotWriteOptions = {},
): Promise<void> {
  const chunkRecords = options.chunkRecords ?? 2_000;
  const temporary = `${file}.tmp`;
  const hash = createHash('sha256');
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const handle = await open(temporary, 'w', 0o600);
  try {
    await handle.chmod(0o600);
    const put = async (text: string): Promise<void> => {
      hash.update(text);
      await handle.write(text);
    };
    await put(`${JSON.stringify(header)}\n`);
    for (let start = 0, index = 0; start < records.length; start += chunkRecords, index += 1) {
      options.beforeChunk?.(index);
      let text = '';
      for (const record of records.slice(start, start + chunkRecords)) text += `${JSON.stringify(record)}\n`;
      await put(text);
    }
    await handle.write(`${JSON.stringify({ lines: records.length + 1, sha256: hash.digest('hex') })}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, file);
}

type SnapshotRead = { ok: true; header: unknown; records: unknown[] } | { ok: false; reason: string };

/**
 * The header and records of a whole snapshot file, or why it is not one (absent, truncated, altered). Each line is
 * parsed as it is read, one behind (the last is the trailer), so the file's text is never held whole beside its
 * documents: at a million events that text alone is a few hundred megabytes.
 */
export async function readSnapshotFile(file: string): Promise<SnapshotRead> {
  const hash = createHash('sha256');
  const values: unknown[] = [];
  let last: string | undefined;
  try {
    const input = createReadStream(file, { encoding: 'utf8' });
    for await (const line of createInterface({ input, crlfDelay: Infinity })) {
      if (last !== undefined) {
        hash.update(`${last}\n`);
        values.push(JSON.parse(last));
      }
      last = line;
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, reason: 'no snapshot' };
    return { ok: false, reason: error instanceof SyntaxError ? 'truncated or altered' : `unreadable: ${(error as Error).message}` };
  }
  try {
    const end = JSON.parse(last ?? 'null') as { lines?: unknown; sha256?: unknown } | null;
    if (end?.lines !== values.length || end.sha256 !== hash.digest('hex')) return { ok: false, reason: 'truncated or altered' };
  } catch {
    return { ok: false, reason: 'truncated or altered' };
  }
  const [header, ...records] = values;
  return { ok: true, header, records };
}
