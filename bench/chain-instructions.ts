/**
 * A public GET counted in instructions, ours beside the floor of the client's stack: `node --import tsx
 * bench/chain-instructions.ts [targets] [sides] [warm-up] [window] [--keep]` (defaults: detail,collections,verify;
 * logged,koa-router-ratelimit; 20000; 3000). Timed runs on this kind of shared machine move by 15 to 30 % from run to
 * run (bench/README.md, "The request log"); callgrind's count of instructions does not move with the machine's load.
 *
 * Each side of each target runs in a process of its own (http/counted-server.ts) under `valgrind --tool=callgrind
 * --instr-atstart=no`, on `node --single-threaded` so that V8's compiling, marking and sweeping land on the counted
 * thread instead of on helper threads the machine schedules as it can, and `--no-memory-reducer`: V8's memory
 * reducer judges a process idle by what it allocates per second, so under callgrind's slowdown it took a busy
 * server for an idle one, collected its heap whole and dropped compiled code, compiled again in the next requests
 * (`--trace-opt` at 150 requests a second, natively: 268 events in 130 s with it, 10 without), work a busy native
 * server does not do. The load (autocannon, in its own process)
 * warms the side up with instrumentation off, then callgrind is switched on, and in each counted window zeroed, sent
 * `window` requests, and dumped: instructions per request = the dump's total over the requests answered. A side is a
 * variant of our chain (http/chain-variants.ts; `logged` writes a request log line for every request) or a floor
 * (http/koa-floor.ts, replaying the bytes and headers recorded from ours). The last column is the floor's count
 * over the first side's, of their medians: at or above 0.95 is issue 42's goal for `logged` against
 * `koa-router-ratelimit`.
 * `--keep` keeps the dumps and names their folder, for `callgrind_annotate` (V8's builtins and Node's C++ are named
 * in them; JIT-compiled JavaScript is not).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { demoReadModel } from './fixtures/demo-read-model.ts';
import { demoSample } from './fixtures/demo-store.ts';
import { chainSetting, isChainVariant, startChainVariant } from './http/chain-variants.ts';
import { isFloorKind } from './http/koa-floor.ts';
import { answersToJson, readApiTargets, recordAnswers, type Target } from './http/targets.ts';
import { startLoadClient, type LoadClient } from './load/load-client.ts';
import { median, round } from './report/stats.ts';

const SERVER = fileURLToPath(new URL('./http/counted-server.ts', import.meta.url));
/**
 * As bench/chain-cost.ts loads a server. Under callgrind the server is the bottleneck, so every connection has a
 * request waiting and each turn of the event loop takes up to this many: its fixed work (polling, timers) is shared
 * as in a busy native server, not paid by each request alone.
 */
const CONNECTIONS = 10;
/**
 * The warm-up's runs, each on connections of its own. Code that sets a connection up is compiled for the connections
 * it met: with one run of warm-up, the measured run's new connections deoptimized Node's HTTP internals
 * ("wrong map") and their compiling again was counted in the requests (`--trace-deopt`: 43 events after one warm-up
 * run, 6 after three); the count is for a server past that, as a busy one is.
 */
const WARM_UP_ROUNDS = 4;
/**
 * And at least this long: the rate limits' windows are a minute, and the first to end takes a path no request had
 * taken (koa-ratelimit's reset), deoptimized and compiled again once, 56 s into a native run at callgrind's pace.
 */
const WARM_UP_MIN_MS = 65_000;
/**
 * Counted windows per side, each zeroed, loaded and dumped: a full garbage collection or a function compiled again
 * lands in one window and not in the others (one such in 5,000 requests moved a side by 20 % here), so the median is
 * what the row compares, the range beside it.
 */
const WINDOWS = 3;
// A side builds the demo read model under valgrind before it listens: minutes on a busy machine.
const START_TIMEOUT_MS = 30 * 60_000;

const keep = process.argv.includes('--keep');
const [targetList = 'detail,collections,verify', sideList = 'logged,koa-router-ratelimit', warmArg = '20000', measuredArg = '3000'] = process.argv.slice(2).filter((arg) => arg !== '--keep');
const sides = sideList.split(',');
for (const side of sides) if (!isChainVariant(side) && !isFloorKind(side)) throw new Error(`chain-instructions: no side ${side}`);
const warmUp = Number(warmArg);
const measured = Number(measuredArg);

const dir = mkdtempSync(join(tmpdir(), 'chain-instructions-'));
const answersFile = join(dir, 'answers.json');
const readStore = await demoReadModel();
const setting = await chainSetting(readStore, 5);
const recorder = await startChainVariant('full', setting);
const targets = readApiTargets(demoSample()).filter((target) => targetList.split(',').includes(target.name));
writeFileSync(answersFile, answersToJson(await recordAnswers(recorder.url, targets)));
recorder.server.close();
setting.clock.stop();
await readStore.close();

/** Starts one side under callgrind, waits for its URL, and returns it with what stops it. */
async function startCounted(side: string, outFile: string) {
  const child = spawn('valgrind', ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${outFile}`,
    process.execPath, '--single-threaded', '--no-memory-reducer', '--import', 'tsx', SERVER, side, answersFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-4_000); });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${side} did not listen within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
    createInterface({ input: child.stdout }).once('line', (line) => { clearTimeout(timer); resolve(line.trim()); });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`${side} exited (${code}) before it listened:\n${stderr}`)); });
  });
  const stop = () => new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
  return { pid: child.pid!, url, stop };
}

const control = (...args: string[]) => execFileSync('callgrind_control', args, { stdio: ['ignore', 'pipe', 'pipe'] });

/** The total of callgrind's `part`th dump for `outFile` (the one the `part`th `callgrind_control -d` wrote). */
function dumpedInstructions(outFile: string, part: number): number {
  const summary = /^summary:\s+(\d+)/m.exec(readFileSync(`${outFile}.${part}`, 'utf8'));
  if (!summary) throw new Error(`no summary line in ${outFile}.${part}`);
  return Number(summary[1]);
}

/** Instructions per request in each counted window of one side. */
async function count(load: LoadClient, target: Target, side: string): Promise<number[]> {
  const outFile = join(dir, `${target.name}.${side}.callgrind`);
  const server = await startCounted(side, outFile);
  try {
    const job = { url: server.url + target.url, method: target.method, ...(target.body === undefined ? {} : { body: target.body, headers: { 'content-type': 'application/json' } }), connections: CONNECTIONS, seconds: 0 };
    const warmUpStart = performance.now();
    for (let round = 0; round < WARM_UP_ROUNDS || performance.now() - warmUpStart < WARM_UP_MIN_MS; round += 1) {
      const warm = await load.run({ ...job, amount: Math.ceil(warmUp / WARM_UP_ROUNDS) });
      if (warm.non2xx + warm.errors > 0) throw new Error(`${target.name} on ${side}: ${warm.non2xx + warm.errors} failures in the warm-up`);
    }
    control('-i', 'on', String(server.pid));
    const perRequest: number[] = [];
    for (let window = 1; window <= WINDOWS; window += 1) {
      control('-z', String(server.pid));
      const result = await load.run({ ...job, amount: measured });
      control('-d', String(server.pid));
      if (result.non2xx + result.errors > 0) throw new Error(`${target.name} on ${side}: ${result.non2xx + result.errors} failures`);
      perRequest.push(dumpedInstructions(outFile, window) / result.requests);
    }
    return perRequest;
  } finally {
    await server.stop();
  }
}

const load = startLoadClient();
try {
  process.stdout.write(`thousands of instructions per request, median (lowest to highest) of ${WINDOWS} windows of ${measured} after ${warmUp} of warm-up\n`);
  process.stdout.write(`${'target'.padEnd(22)}${sides.map((side) => side.padStart(30)).join('')}${sides.length > 1 ? `${`${sides.at(-1)}/${sides[0]}, by median`.padStart(44)}` : ''}\n`);
  const thousands = (n: number) => String(round(n / 1_000, 1));
  for (const target of targets) {
    const medians: number[] = [];
    const cells: string[] = [];
    for (const side of sides) {
      const windows = await count(load, target, side);
      medians.push(median(windows));
      cells.push(`${thousands(median(windows))} (${thousands(Math.min(...windows))} to ${thousands(Math.max(...windows))})`.padStart(30));
    }
    const ratio = medians.length > 1 ? String(round(medians.at(-1)! / medians[0]!, 3)).padStart(44) : '';
    process.stdout.write(`${target.name.padEnd(22)}${cells.join('')}${ratio}\n`);
  }
} finally {
  await load.close();
  if (keep) process.stdout.write(`callgrind's dumps: ${dir}\n`);
  else rmSync(dir, { recursive: true, force: true });
}
