/**
 * The two auditor's operations on the hash chain, apart from where the records come from or go to: write the
 * history as an export, and check a sequence of records (the live file or an export) link by link.
 */
import { createReadStream } from 'node:fs';
import { toHex, type AnchoredRecord } from './audit-record.ts';
import { ChainVerifier, type VerifierOptions, type VerifyOutcome } from './chain-verifier.ts';
import { ExportFormatError, exportLine, parseExportLine } from './export-format.ts';
import type { LinkedRecord } from './linked-history.ts';

export interface ExportSummary {
  count: number;
  first: number | null;
  last: number | null;
  /** Chain hash (hex) of the last event written. */
  headChainHash: string | null;
}

type Records<T> = Iterable<T> | AsyncIterable<T>;
/** Told after each event: how many were handled, and the position of the last one. */
export type OnEvent = (done: number, position: number) => void;

export async function exportHistory(
  records: Records<LinkedRecord>, write: (line: string) => void | Promise<void>, onEvent: OnEvent = () => {},
): Promise<ExportSummary> {
  const summary: ExportSummary = { count: 0, first: null, last: null, headChainHash: null };
  for await (const { record, links } of records) {
    await write(exportLine(record, links));
    summary.count += 1;
    summary.first ??= record.position;
    summary.last = record.position;
    summary.headChainHash = toHex(record.chain_hash);
    onEvent(summary.count, record.position);
  }
  return summary;
}

/** Checks records in the order given and stops at the first broken link. */
export async function verifyRecords(
  records: Records<AnchoredRecord>, options: VerifierOptions = {}, onEvent: OnEvent = () => {},
): Promise<VerifyOutcome> {
  const verifier = new ChainVerifier(options);
  let done = 0;
  for await (const record of records) {
    if (verifier.push(record)) break;
    onEvent((done += 1), record.position);
  }
  return verifier.result();
}

/** Lines in a file (for progress), counted without decoding it. */
export async function countLines(file: string): Promise<number> {
  let lines = 0;
  for await (const chunk of createReadStream(file)) {
    for (let i = (chunk as Buffer).indexOf(10); i !== -1; i = (chunk as Buffer).indexOf(10, i + 1)) lines += 1;
  }
  return lines;
}

/** The records of an export file, line by line (blank lines skipped); a malformed line throws, naming it. */
export async function* readExportFile(file: string): AsyncGenerator<AnchoredRecord> {
  for await (const [number, line] of fileLines(file)) {
    if (line.trim() !== '') yield parseExportLine(line, number);
  }
}

/**
 * The longest line read: an export's lines are a few kilobytes (an event's data and metadata, bodies being 16 KiB at
 * most), so a longer one is no export's, and is refused before it fills the memory (a disk image named by mistake).
 */
export const MAX_EXPORT_LINE_BYTES = 16 << 20;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The lines of `file`, numbered from 1, split at each LF (a CR before it dropped), each UTF-8 and of bounded length. */
async function* fileLines(file: string): AsyncGenerator<[number, string]> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let number = 0;
  const decoded = (bytes: Buffer): [number, string] => {
    number += 1;
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      throw new ExportFormatError(number, 'not UTF-8');
    }
    return [number, text.endsWith('\r') ? text.slice(0, -1) : text];
  };
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      const line = Buffer.concat([...pending, chunk.subarray(start, end)]);
      pending = [];
      pendingBytes = 0;
      if (line.length > MAX_EXPORT_LINE_BYTES) throw new ExportFormatError(number + 1, `longer than ${MAX_EXPORT_LINE_BYTES} bytes`);
      yield decoded(line);
      start = end + 1;
    }
    pending.push(chunk.subarray(start));
    pendingBytes += chunk.length - start;
    if (pendingBytes > MAX_EXPORT_LINE_BYTES) throw new ExportFormatError(number + 1, `longer than ${MAX_EXPORT_LINE_BYTES} bytes`);
  }
  if (pendingBytes > 0) yield decoded(Buffer.concat(pending));
}
