/**
 * `npm run bench:start`: how long the compiled service takes to start (issue 14, item 1), beside the TypeScript
 * sources run through tsx as the baseline, alternating round by round on the same machine.
 * - `npm start` on existing data (npm's own start included) until the first answer of the public API;
 * - `watchcat --help` (the bin, compiled) until it exits.
 * Goals: first answer under 1 s, `--help` under 0.5 s. Needs dist/ (`npm ci` or `npm run build`).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../test/support/redis-server.ts';
import { median } from './report/stats.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = process.argv.includes('--quick') ? 3 : 7;

interface Command { label: string; command: string; args: string[] }
const SERVERS: Command[] = [
  { label: 'npm start (dist/)', command: 'npm', args: ['start', '--silent'] },
  { label: 'tsx main.ts (baseline)', command: process.execPath, args: ['--import', 'tsx', 'main.ts'] },
];
const HELPS: Command[] = [
  { label: 'watchcat --help (dist/)', command: process.execPath, args: ['bin/watchcat.js', '--help'] },
  { label: 'tsx watchcat.ts --help (baseline)', command: process.execPath, args: ['--import', 'tsx', 'services/cli/watchcat.ts', '--help'] },
];

/** Milliseconds from spawning `server` until its public API answers 200; then the process group is stopped. */
async function firstAnswerMs(server: Command, dataDir: string): Promise<number> {
  const [port, opsPort, adminPort] = [await freePort(), await freePort(), await freePort()];
  const started = performance.now();
  const child = spawn(server.command, server.args, {
    cwd: ROOT, stdio: 'ignore', detached: true,
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'silent', PORT: String(port), OPS_PORT: String(opsPort), ADMIN_PORT: String(adminPort) },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (;;) {
      const answer = await fetch(`http://127.0.0.1:${port}/api/public/status`).catch(() => undefined);
      if (answer?.status === 200) return performance.now() - started;
      if (child.exitCode !== null) throw new Error(`${server.label} exited with ${child.exitCode} before answering`);
      await sleep(2);
    }
  } finally {
    process.kill(-child.pid!, 'SIGTERM'); // npm runs the server in a child of its own: stop the whole group
    await exited;
  }
}

function exitMs(command: Command): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command.command, command.args, { cwd: ROOT, stdio: 'ignore', env: { PATH: process.env.PATH ?? '' } });
    child.once('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`${command.label} exited with ${code}`))));
  });
}

if (!existsSync(join(ROOT, 'dist', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first');
const dataDir = mkdtempSync(join(tmpdir(), 'watchcat-start-'));
try {
  await firstAnswerMs(SERVERS[0]!, dataDir); // the first start loads the demo catalogue; the rounds start on existing data
  const times = new Map<string, number[]>();
  const record = (label: string, ms: number) => times.set(label, [...(times.get(label) ?? []), ms]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const server of SERVERS) record(server.label, await firstAnswerMs(server, dataDir));
    for (const help of HELPS) record(help.label, await exitMs(help));
  }
  const rows = [...times].map(([label, ms]) => ({ label, median_ms: Math.round(median(ms)), runs_ms: ms.map(Math.round) }));
  for (const row of rows) process.stdout.write(`${row.label.padEnd(36)} median ${String(row.median_ms).padStart(5)} ms   runs ${row.runs_ms.join(' ')}\n`);
  const goals = { first_answer_under_1s: rows[0]!.median_ms < 1000, help_under_0_5s: rows[2]!.median_ms < 500 };
  process.stdout.write(`${JSON.stringify({ rounds: ROUNDS, load_average: loadavg(), start: rows, goals })}\n`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
