/** Runs `watchcat` in-process against a data directory and captures what it writes, for the audit tests. */
import { createCliContext } from '../../../services/cli/cli-context.ts';
import { run } from '../../../services/cli/program.ts';

export interface WatchcatResult {
  code: number;
  out: string[];
  notes: string[];
}

export async function watchcat(env: Record<string, string>, ...args: string[]): Promise<WatchcatResult> {
  const out: string[] = [];
  const notes: string[] = [];
  const context = createCliContext({ ...env }, { out: (line) => out.push(line), note: (line) => notes.push(line) });
  const code = await run(['node', 'watchcat', ...args], context);
  return { code, out, notes };
}
