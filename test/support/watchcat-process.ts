/**
 * Runs one of the service's entry points (`read-api/main.ts`, `projector/main.ts`, `services/main.ts`) as a real
 * process, the node command the npm scripts run, for the tests of the scale topology. Its log lines are kept for
 * the failure messages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface WatchcatProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly lines: string[];
  /** Resolves once a log line matches (a process that exits first rejects it). */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
  /** SIGKILL, as a power cut or the OOM killer. */
  kill(): Promise<void>;
}

/** `args`: the entry's arguments (the CLI's command and options); `root`: the checkout to run it from (default this one). */
export function startWatchcatProcess(
  name: string, entry: string, env: Record<string, string>, args: readonly string[] = [], root = ROOT,
): WatchcatProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
    cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env },
  });
  const lines: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (const stream of [child.stdout!, child.stderr!]) createInterface({ input: stream }).on('line', (line) => lines.push(line));
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return {
    name, child, lines,
    async waitForLine(pattern, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (!lines.some((line) => pattern.test(line))) {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited: ${lines.join('\n')}`);
        if (Date.now() > deadline) throw new Error(`${name} did not log ${pattern} within ${timeoutMs} ms: ${lines.join('\n')}`);
        await sleep(50);
      }
    },
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
  };
}
