/**
 * The two auditor's operations on the hash chain, apart from where the records come from or go to: write the
 * history as an export, and check a sequence of records (the live file or an export) link by link.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { toHex, type AnchoredRecord } from './audit-record.ts';
import { ChainVerifier, type VerifierOptions, type VerifyOutcome } from './chain-verifier.ts';
import { exportLine, parseExportLine } from './export-format.ts';
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
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY });
  let number = 0;
  for await (const line of lines) {
    number += 1;
    if (line.trim() !== '') yield parseExportLine(line, number);
  }
}
