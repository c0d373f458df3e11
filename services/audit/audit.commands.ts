/**
 * `watchcat export [--from POSITION] [--out FILE]` and `watchcat audit verify [FILE] [--live] [--expect-head HASH]`:
 * the history with its audit hashes as NDJSON, and the recomputation of both chains from the live file or an export;
 * `watchcat audit projections` (projections-audit.command.ts); `watchcat audit log verify` and `watch` (log-verify.command.ts, log-watch.command.ts).
 */
import { InvalidArgumentError } from 'commander';
import type { CliContext } from '../cli/cli-context.ts';
import type { CliModule } from '../cli/cli-module.ts';
import { startProgress, stderrProgress } from './audit-progress.ts';
import { AuditError, linkedHistory, liveRecords, type HistorySource } from './audit-sources.ts';
import { countLines, exportHistory, readExportFile, verifyRecords, type ExportSummary, type OnEvent } from './chain-audit.ts';
import { lineFile, lineStream, type LineSink } from './line-file.ts';
import { logVerifyCommand } from './log-verify.command.ts';
import { logWatchCommand } from './log-watch.command.ts';
import { projectionsAuditCommand } from './projections-audit.command.ts';
import type { VerifyOutcome } from './chain-verifier.ts';

function position(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError('expected a position, a whole number >= 0');
  return Number(value);
}

function hash(value: string): Buffer {
  const hex = value.trim().toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new InvalidArgumentError('expected a SHA-256 hash in hex (64 characters)');
  return Buffer.from(hex, 'hex');
}

/** A sink for lines: the file, or stdout (each with back-pressure), or the command's output where it keeps them. */
function lineSink(context: CliContext, file: string | undefined): LineSink {
  if (file) return lineFile(file);
  return context.outStream ? lineStream(context.outStream) : { write: (line) => context.out(line), end: async () => {} };
}

async function runExport(context: CliContext, options: { from: number; out?: string }): Promise<void> {
  const source = await linkedHistory(context, options.from);
  const sink = lineSink(context, options.out);
  const progress = startProgress('export', source.scale, stderrProgress(context.note));
  let summary: ExportSummary;
  let written = { count: 0, position: options.from };
  try {
    summary = await exportHistory(source.records, sink.write, (done, position) => {
      written = { count: done, position };
      progress.update(done, position);
    });
    await sink.end();
  } catch (error) {
    // Only the lines before it arrived: no summary, no head hash of a file that does not hold it.
    await sink.end().catch(() => undefined);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined) throw error;
    throw new AuditError(`export stopped after ${written.count} events (position ${written.position}): ${options.out ?? 'stdout'}: ${code}`);
  } finally {
    progress.stop();
    source.close();
  }
  context.note(summary.count === 0
    ? `export: no events after position ${options.from}`
    : `export: ${summary.count} events (positions ${summary.first}..${summary.last})${options.out ? ` to ${options.out}` : ''}; head chain hash ${summary.headChainHash}`);
}

async function checked<T>(
  context: CliContext, source: HistorySource<T>, run: (onEvent: OnEvent) => Promise<VerifyOutcome>,
): Promise<VerifyOutcome> {
  const progress = startProgress('verify', source.scale, stderrProgress(context.note));
  try {
    return await run((done, position) => progress.update(done, position));
  } finally {
    progress.stop();
    source.close();
  }
}

function reportOutcome(context: CliContext, outcome: VerifyOutcome, what: string): void {
  if (outcome.anchor) {
    context.note(`note: ${what} starts mid-history at position ${outcome.anchor.position}; checked from there, anchored on previous chain hash ${outcome.anchor.previousChainHash}`);
  }
  const broken = outcome.broken;
  if (broken) {
    const where = broken.stream === null ? `after position ${broken.position}` : `at position ${broken.position} (stream ${broken.stream}, revision ${broken.revision})`;
    throw new AuditError(`audit chain of ${what} broken ${where}: ${broken.problem}`);
  }
  if (!outcome.head) {
    context.out(`audit chain of ${what}: no events`);
    return;
  }
  context.out(`audit chain of ${what} intact: ${outcome.checked} events, head position ${outcome.head.position}, head chain hash ${outcome.head.chainHash}`);
  context.out('record the head chain hash elsewhere: `watchcat audit verify --live --expect-head HASH` then detects a removal of the newest events');
}

async function runVerify(context: CliContext, file: string | undefined, options: { live?: boolean; expectHead?: Buffer }): Promise<void> {
  if (Boolean(file) === Boolean(options.live)) throw new AuditError('audit verify: give either an export FILE or --live');
  if (file) {
    const source = { scale: { events: await countLines(file) }, records: readExportFile(file), close: () => {} };
    const outcome = await checked(context, source, (onEvent) => verifyRecords(source.records, { allowAnchors: true, expectedHead: options.expectHead }, onEvent));
    reportOutcome(context, outcome, file);
    return;
  }
  const source = liveRecords(context);
  const outcome = await checked(context, source, (onEvent) => verifyRecords(source.records, { expectedHead: options.expectHead }, onEvent));
  reportOutcome(context, outcome, 'the live event store');
}

export const auditCommands: CliModule = (program, context) => {
  program.command('export')
    .description('write the whole history as NDJSON: one event per line with its position, stream, revision, id, type, data, metadata and audit hashes')
    .option('--from <position>', 'only the events after this position', position, 0)
    .option('--out <file>', 'write to this file instead of stdout')
    .action((options: { from: number; out?: string }) => runExport(context, options));

  const audit = program.command('audit').description('auditors\' checks of the event history and the read models');
  audit.command('verify')
    .description('recompute the hash chains of the live store (--live) or of an export file; names the first broken link, exit code 1 when broken')
    .argument('[file]', 'an export written by `watchcat export`')
    .option('--live', 'check the configured event store itself')
    .option('--expect-head <hash>', 'a head chain hash recorded earlier: fail if the history no longer contains it', hash)
    .action((file: string | undefined, options: { live?: boolean; expectHead?: Buffer }) => runVerify(context, file, options));
  projectionsAuditCommand(audit, context);
  const log = audit.command('log').description('the transparency log: an export against a checkpoint, a monitor of the service');
  logVerifyCommand(log, context);
  logWatchCommand(log, context);
};
