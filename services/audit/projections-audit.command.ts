/**
 * `watchcat audit projections [--projection NAME...]`: the live read models against the history, document by
 * document; exit code 1 on any difference. The live models must be reachable from the CLI: MongoDB (MONGODB_URL).
 * In the embedded mode they live in the server's memory, where the server itself must run `auditProjections`.
 */
import { Option, type Command } from 'commander';
import { createReadStore } from '../../shared/adapters/read-store.factory.ts';
import { PROJECTION_NAMES, selectProjections } from '../../projector/projections/index.ts';
import type { CliContext } from '../cli/cli-context.ts';
import { rebuildProgress, stderrProgress } from './audit-progress.ts';
import { AuditError } from './audit-sources.ts';
import { describeDifference } from './compare-read-models.ts';
import { auditProjections } from './projections-audit.ts';

async function run(context: CliContext, names: string[] | undefined): Promise<void> {
  const config = context.config();
  if (!config.MONGODB_URL) {
    throw new AuditError('audit projections needs the live read models: set MONGODB_URL (the embedded server keeps them in its own memory, out of the CLI\'s reach)');
  }
  const projections = selectProjections(names);
  const live = await createReadStore(config);
  const progress = rebuildProgress('shadow rebuild', stderrProgress(context.note));
  try {
    const audit = await auditProjections({ eventStore: await context.store(), live, projections, onProgress: progress.onProgress });
    progress.stop();
    for (const difference of audit.differences) context.out(describeDifference(difference));
    const at = Object.entries(audit.positions).map(([name, position]) => `${name} at ${position}`).join(', ');
    if (audit.moved) throw new AuditError(`the live read models kept moving during the comparison (${at}): run it again when the projector is idle`);
    if (audit.failed.length > 0) throw new AuditError(`projection(s) ${audit.failed.join(', ')} stopped on an event they cannot apply`);
    if (audit.differences.length > 0) throw new AuditError(`${audit.differences.length} document(s) differ from what the history produces (${at})`);
    context.out(`read models match the history: ${at}`);
  } finally {
    await live.close();
  }
}

export function projectionsAuditCommand(audit: Command, context: CliContext): void {
  audit.command('projections')
    .description('rebuild every projection from the history into a shadow store and compare it with the live read models (MongoDB), document by document; exit code 1 on a difference')
    .addOption(new Option('--projection <name...>', 'only these projections').choices(PROJECTION_NAMES))
    .action((options: { projection?: string[] }) => run(context, options.projection));
}
