/**
 * `npm run bench:start`: how long the compiled service takes to start (issue 14, item 1), beside the TypeScript
 * sources run through tsx as the baseline, alternating round by round on the same machine.
 * - `npm start` on existing data (npm's own start included) until the first answer of the public API;
 * - `watchcat --help` (the bin, compiled) until it exits.
 * Goals: first answer under 1 s, `--help` under 0.5 s. Needs dist/ (`npm ci` or `npm run build`). 7 rounds,
 * `--quick` 3, `--rounds N` N.
 * `--events N`: `npm start` alone, on a history of N events (the synthetic one of the projection benchmark, cached
 * in .bench/), to see how the start grows with the history: from the read-model snapshot the first start wrote at
 * its stop, and without it (READ_SNAPSHOT_SECONDS=0: the whole history replayed), alternating.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { get } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../test/support/redis-server.ts';
import { syntheticHistoryFile } from './fixtures/synthetic-history.ts';
import { median } from './report/stats.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const roundsAt = process.argv.indexOf('--rounds');
const ROUNDS = roundsAt >= 0 ? Number(process.argv[roundsAt + 1]) : process.argv.includes('--quick') ? 3 : 7;
const eventsAt = process.argv.indexOf('--events');
const EVENTS = eventsAt < 0 ? undefined : Number(process.argv[eventsAt + 1]);

interface Command { label: string; command: string; args: string[]; env?: Record<string, string> }
const NPM_START: Command = { label: 'npm start (dist/)', command: 'npm', args: ['start', '--silent'] };
const SERVERS: Command[] = EVENTS === undefined
  ? [NPM_START, { label: 'tsx main.ts (baseline)', command: process.execPath, args: ['--import', 'tsx', 'main.ts'] }]
  : [NPM_START, { ...NPM_START, label: 'npm start, no snapshot', env: { READ_SNAPSHOT_SECONDS: '0' } }];
const HELPS: Command[] = [
  { label: 'watchcat --help (dist/)', command: process.execPath, args: ['bin/watchcat.js', '--help'] },
  { label: 'tsx watchcat.ts --help (baseline)', command: process.execPath, args: ['--import', 'tsx', 'services/cli/watchcat.ts', '--help'] },
];

/**
 * The status code of GET /api/public/status, 0 while nothing listens. A bare node:http request: the poll shares the
 * two cores with the server it times, and fetch costs far more CPU per refused attempt.
 */
function statusCode(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = get({ host: '127.0.0.1', port, path: '/api/public/status', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
  });
}

/** Milliseconds from spawning `server` until its public API answers 200; then the process group is stopped. */
async function firstAnswerMs(server: Command, dataDir: string): Promise<number> {
  const [port, opsPort, adminPort] = [await freePort(), await freePort(), await freePort()];
  const started = performance.now();
  const child = spawn(server.command, server.args, {
    cwd: ROOT, stdio: 'ignore', detached: true,
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'silent', PORT: String(port), OPS_PORT: String(opsPort), ADMIN_PORT: String(adminPort), ...server.env },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (;;) {
      if ((await statusCode(port)) === 200) return performance.now() - started;
      if (child.exitCode !== null) throw new Error(`${server.label} exited with ${child.exitCode} before answering`);
      await sleep(5);
    }
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM'); // npm runs the server in a child of its own: stop the whole group
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error; // the group had already gone
    }
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

const snapshotBytes = (): number | null => {
  const file = join(dataDir, 'read-models.snapshot');
  return existsSync(file) ? statSync(file).size : null;
};

if (!existsSync(join(ROOT, 'dist', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first');
const dataDir = mkdtempSync(join(tmpdir(), 'watchcat-start-'));
try {
  if (EVENTS !== undefined) copyFileSync(await syntheticHistoryFile(EVENTS), join(dataDir, 'events.sqlite3'));
  const loadAtStart = loadavg();
  // The first start loads the demo catalogue (or replays the history) and writes the snapshot at its stop; the
  // rounds start on existing data.
  const firstStartMs = await firstAnswerMs(SERVERS[0]!, dataDir);
  const times = new Map<string, number[]>();
  const record = (label: string, ms: number) => times.set(label, [...(times.get(label) ?? []), ms]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const server of SERVERS) record(server.label, await firstAnswerMs(server, dataDir));
    for (const help of EVENTS === undefined ? HELPS : []) record(help.label, await exitMs(help));
  }
  const rows = [...times].map(([label, ms]) => ({ label, median_ms: Math.round(median(ms)), runs_ms: ms.map(Math.round) }));
  for (const row of rows) process.stdout.write(`${row.label.padEnd(36)} median ${String(row.median_ms).padStart(5)} ms   runs ${row.runs_ms.join(' ')}\n`);
  const goals = { first_answer_under_1s: rows[0]!.median_ms < 1000, ...(EVENTS === undefined ? { help_under_0_5s: rows[2]!.median_ms < 500 } : {}) };
  process.stdout.write(`${JSON.stringify({ rounds: ROUNDS, events: EVENTS ?? 'demo', first_start_ms: Math.round(firstStartMs), snapshot_bytes: snapshotBytes(), load_average: [loadAtStart, loadavg()], start: rows, goals })}\n`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
