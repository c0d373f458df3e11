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

export type SnapshotRead = { ok: true; header: unknown; records: unknown[] } | { ok: false; reason: string };

/** The header and records of a whole snapshot file, or why it is not one (absent, truncated, altered). */
export async function readSnapshotFile(file: string): Promise<SnapshotRead> {
  const hash = createHash('sha256');
  const lines: string[] = [];
  try {
    const input = createReadStream(file, { encoding: 'utf8' });
    for await (const line of createInterface({ input, crlfDelay: Infinity })) lines.push(line);
  } catch (error) {
    return { ok: false, reason: (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no snapshot' : `unreadable: ${(error as Error).message}` };
  }
  const trailer = lines.pop();
  for (const line of lines) hash.update(`${line}\n`);
  try {
    const end = JSON.parse(trailer ?? 'null') as { lines?: unknown; sha256?: unknown } | null;
    if (end?.lines !== lines.length || end.sha256 !== hash.digest('hex')) return { ok: false, reason: 'truncated or altered' };
    const [header, ...records] = lines.map((line) => JSON.parse(line) as unknown);
    return { ok: true, header, records };
  } catch {
    return { ok: false, reason: 'truncated or altered' };
  }
}
