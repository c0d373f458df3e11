/**
 * `watchcat audit projections [--projection NAME...]`: the live read models against the history, document by
 * document; exit code 1 on any difference. With MongoDB (MONGODB_URL) the CLI reads the live models itself; in the
 * embedded mode they live in the server's memory, so the server runs the audit on its operations port.
 */
import { Option, type Command } from 'commander';
import { createReadStore } from '../../shared/adapters/read-store.factory.ts';
import { PROJECTION_NAMES, selectProjections } from '../../shared/read-model/projections/index.ts';
import type { CliContext } from '../cli/cli-context.ts';
import { describeStore } from '../cli/cli-store.ts';
import { firstKeyWithScope } from '../admin/api-keys.ts';
import { rebuildProgress, stderrProgress } from './audit-progress.ts';
import { AuditError } from './audit-sources.ts';
import { describeDifference } from './compare-read-models.ts';
import { formatMark, HISTORY_PARAMETER, historyMark } from './history-mark.ts';
import { auditProjections } from './projections-audit.ts';
import { PROJECTIONS_AUDIT_PATH, type ProjectionsAuditReport } from './projections-audit.route.ts';

/** Events (or documents ahead) named one per line; more are counted. */
const NAMED_AT_MOST = 20;

/**
 * The events the comparison passed over, said before any verdict: both sides are this version's reading of the
 * history, so "match" means they match it without these events, which a newer version would project.
 */
function sayUnreadable(context: CliContext, unreadable: ProjectionsAuditReport['unreadable'] = []): void {
  if (unreadable.length === 0) return;
  context.out(`${unreadable.length} event(s) of the history this version cannot read: its read models skip them, but in a serial's stream, `
    + 'where they mark the serial unanswerable; the read models are compared as this version reads the history');
  for (const { position, type, stream, unreadable: why } of unreadable.slice(0, NAMED_AT_MOST)) context.out(`  position ${position} (${type}, ${stream}): ${why}`);
  if (unreadable.length > NAMED_AT_MOST) context.out(`  and ${unreadable.length - NAMED_AT_MOST} more (watchcat history lists them)`);
}

/** Documents a stopped projector left past its checkpoint: said, as late rather than wrong, before any verdict. */
function sayAhead(context: CliContext, ahead: ProjectionsAuditReport['ahead'] = []): void {
  if (ahead.length === 0) return;
  context.out(`${ahead.length} document(s) ahead of their projection's checkpoint, each as the history has it at its own position `
    + '(a projector stopped between writing them and its checkpoint; the next run catches up):');
  for (const { collection, id, position, checkpoint } of ahead.slice(0, NAMED_AT_MOST)) context.out(`  ${collection} ${id} at ${position}, checkpoint ${checkpoint}`);
  if (ahead.length > NAMED_AT_MOST) context.out(`  and ${ahead.length - NAMED_AT_MOST} more`);
}

/** Prints the findings and throws when the read models do not match the history. */
function conclude(context: CliContext, report: ProjectionsAuditReport): void {
  for (const difference of report.differences) context.out(difference);
  sayUnreadable(context, report.unreadable);
  sayAhead(context, report.ahead);
  const at = Object.entries(report.positions).map(([name, position]) => `${name} at ${position}`).join(', ');
  if (report.moved) throw new AuditError(`the live read models kept moving during the comparison (${at}): run it again when the projector is idle`);
  if (report.failed.length > 0) throw new AuditError(`projection(s) ${report.failed.join(', ')} stopped on an event they cannot apply`);
  if (report.differences.length > 0) throw new AuditError(`${report.differences.length} document(s) differ from what the history produces (${at})`);
  context.out(report.unreadable?.length
    ? `read models match the history as this version reads it, without the ${report.unreadable.length} event(s) above: ${at}`
    : `read models match the history: ${at}`);
}

/** MongoDB: the CLI reaches the live read models itself and rebuilds the shadow here. */
async function auditMongo(context: CliContext, names: string[] | undefined): Promise<ProjectionsAuditReport> {
  const live = await createReadStore(context.config());
  const progress = rebuildProgress('shadow rebuild', stderrProgress(context.note));
  try {
    const audit = await auditProjections({
      eventStore: await context.store({ existing: true }), live, projections: selectProjections(names), onProgress: progress.onProgress,
    });
    progress.stop();
    return { ...audit, differences: audit.differences.map(describeDifference) };
  } finally {
    await live.close();
  }
}

/** Embedded mode: the live read models are in the running server's memory, so the server runs the audit. */
async function auditEmbedded(context: CliContext, server: string): Promise<ProjectionsAuditReport> {
  // The server's own settings name the key: the first key of ADMIN_API_KEYS with the audit scope.
  const key = firstKeyWithScope(context.config().ADMIN_API_KEYS, 'audit');
  if (!key) throw new AuditError('the embedded audit needs a key with the audit scope in ADMIN_API_KEYS (key:audit)');
  // The server must audit the history this configuration names, not whichever one it serves.
  const mark = await historyMark(await context.store({ existing: true }));
  if (!mark) throw new AuditError(`the history at ${describeStore(context.config())} is empty: there is nothing to audit`);
  const url = new URL(PROJECTIONS_AUDIT_PATH, server);
  url.searchParams.set(HISTORY_PARAMETER, formatMark(mark));
  let response: Response;
  try {
    response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  } catch {
    throw new AuditError(`no server answers on ${server}: start it (npm start) or set MONGODB_URL to audit MongoDB read models`);
  }
  if (response.status === 412) {
    throw new AuditError(`${server} serves another history than ${describeStore(context.config())}: start the server on that history or name its --server`);
  }
  if (response.status === 429) throw new AuditError(`${server} refused the audit: ${((await response.json()) as { detail: string }).detail}`);
  if (response.status !== 200 && response.status !== 409) throw new AuditError(`${server} answered ${response.status} to the audit`);
  return (await response.json()) as ProjectionsAuditReport;
}

async function run(context: CliContext, options: { projection?: string[]; server?: string }): Promise<void> {
  const config = context.config();
  if (config.MONGODB_URL) return conclude(context, await auditMongo(context, options.projection));
  if (options.projection) throw new AuditError('--projection applies to MongoDB read models; the embedded server audits them all');
  conclude(context, await auditEmbedded(context, options.server ?? `http://127.0.0.1:${config.OPS_PORT}`));
}

export function projectionsAuditCommand(audit: Command, context: CliContext): void {
  audit.command('projections')
    .description('rebuild every projection from the history into a shadow store and compare it with the live read models, document by document; exit code 1 on a difference')
    .addOption(new Option('--projection <name...>', 'only these projections (MongoDB read models)').choices(PROJECTION_NAMES))
    .option('--server <url>', 'operations port of the embedded server holding the live read models (default http://127.0.0.1:OPS_PORT)')
    .action((options: { projection?: string[]; server?: string }) => run(context, options));
}
