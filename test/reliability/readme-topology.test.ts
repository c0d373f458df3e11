/**
 * Issue 29, item 1: README.md's "At scale on one machine" runs as written. The test takes the shell block from the
 * README and runs it in bash, in a directory that holds the project (every file of it linked in, but for its local
 * state), inside this run's FerretDB (scripts/with-ferretdb.sh gives MONGODB_URL, as the block's first
 * line does, so that line is left out) and with a private redis-server on a free port in place of the one on 6379.
 * Every other line runs verbatim, with the default ports it names. Then: every process is up on its own ports
 * (on main at 204df55 the projectors and the second API died with EADDRINUSE), a price changed through the admin
 * API is served by both replicas, the block's audit key reads the transparency log at the admin API (issue 44), a
 * real Prometheus (the block's last line) scrapes all five processes and reads the projection lag through its query
 * API, and on SIGTERM every process stops without an error line or a stack.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { describeMongo } from '../support/mongodb-leg.ts';
import { startTestRedis, type TestRedis } from '../support/redis-server.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PROMETHEUS = 'http://127.0.0.1:9090';
const LOCAL_STATE = new Set(['.git', 'data', '.bench', 'reports']);
/** Every port the block uses, from its comments and its prometheus config (infra/prometheus/local.yml). */
const PORTS = { api: [3000, 3001], apiOps: [9464, 9474], admin: 3100, services: 9465, projectors: [9466, 9467], prometheus: 9090 };

/** The shell block of the README's section "At scale on one machine, without Docker". */
function readmeRecipe(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### At scale on one machine, without Docker'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('no sh block in the README section "At scale on one machine"');
  return block.split('\n').filter((line) => line.trim() !== '');
}

function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>, log: () => string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await probe().catch(() => undefined);
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms\n${log()}`);
    await sleep(250);
  }
}

/** Skips, saying why; under CI=true, whose machine is the project's own, fails instead. */
function skipOrFail(context: Mocha.Context, why: string): never {
  if (process.env['CI'] === 'true') throw new Error(`CI=true and the README topology cannot run: ${why}`);
  console.log(`      skipped: ${why} (\`unshare -n\` gives a run ports of its own, see test/README.md)`);
  return context.skip();
}

const ok = async (url: string) => ((await fetch(url)).status === 200 ? true : undefined);

interface PromSample { metric: Record<string, string>; value: [number, string] }
async function promQuery(query: string): Promise<PromSample[]> {
  const answer = await fetch(`${PROMETHEUS}/api/v1/query?query=${encodeURIComponent(query)}`);
  const body = await answer.json() as { status: string; data: { result: PromSample[] }; error?: string };
  if (body.status !== 'success') throw new Error(`${query}: ${body.error}`);
  return body.data.result;
}

describeMongo('README "At scale on one machine" run as written (real processes, FerretDB, Redis, Prometheus)', 'the README topology', function (leg) {
  this.timeout(180_000);
  let redis: TestRedis;
  let dir: string;
  let shell: ChildProcess | undefined;
  const lines: string[] = [];
  const log = () => lines.slice(-60).join('\n');

  before(async function () {
    const busy = [];
    for (const port of Object.values(PORTS).flat()) if (await portInUse(port)) busy.push(port);
    // A machine shared with other work may hold one (another `npm start`): the run needs them all, as the README does.
    if (busy.length > 0) skipOrFail(this, `the README's default ports are in use on this machine: ${busy.join(', ')}`);
    try {
      await promisify(execFile)('prometheus', ['--version']);
    } catch {
      skipOrFail(this, 'prometheus is missing (Debian package prometheus)');
    }
    // The npm scripts run the compiled program.
    await promisify(execFile)('npm', ['run', 'build'], { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: '' } });
    redis = await startTestRedis();
    dir = mkdtempSync(join(tmpdir(), 'watchcat-readme-'));
    // The project as a checkout has it, but for its local state (DATA_DIR's default ./data and the like), so that
    // `npx watchcat` finds the package it runs in.
    for (const entry of readdirSync(ROOT)) if (!LOCAL_STATE.has(entry)) symlinkSync(join(ROOT, entry), join(dir, entry));
  });

  after(async () => {
    // The whole process group, even when the shell has ended: a failed run must not leave Prometheus or a replica
    // holding the README's ports for the runs after it.
    if (shell?.pid !== undefined) {
      try {
        process.kill(-shell.pid, 'SIGKILL');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    }
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('starts every process on its own ports, serves a change on both replicas, is scraped by Prometheus, and stops cleanly', async () => {
    const recipe = readmeRecipe();
    const [shellLine, redisLine] = recipe;
    expect(shellLine, 'the first line opens the FerretDB shell').to.match(/^bash scripts\/with-ferretdb\.sh bash/);
    expect(redisLine, 'the second starts redis-server on 6379').to.match(/^redis-server --port 6379 /);
    const script = [
      // The recipe's ./data is the project root's (every process and command reads a relative DATA_DIR from there):
      // this run's own folder stands in for it, as its Redis does for 6379.
      ...recipe.slice(2).map((line) => line.replaceAll('redis://127.0.0.1:6379', redis.url).replaceAll('DATA_DIR=./data', `DATA_DIR=${join(dir, 'data')}`)),
      // What the operator reads back from their shell: the keys the block made.
      'printf "KEYS %s\\n" "$ADMIN_API_KEYS"',
      'wait',
    ].join('\n');
    const env: NodeJS.ProcessEnv = {
      PATH: process.env['PATH'], HOME: process.env['HOME'], MONGODB_URL: leg.url, MONGODB_DB: leg.database('readme'), NODE_OPTIONS: '',
    };
    const started = Date.now();
    shell = spawn('bash', ['-c', script], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [shell.stdout!, shell.stderr!]) createInterface({ input: stream }).on('line', (line) => lines.push(line));

    // Every process up, each on the port the README gives it.
    for (const port of PORTS.apiOps) await until(`read API ready on ${port}`, 90_000, () => ok(`http://127.0.0.1:${port}/readyz`), log);
    for (const port of [PORTS.services, ...PORTS.projectors]) {
      await until(`health on ${port}`, 60_000, () => ok(`http://127.0.0.1:${port}/healthz`), log);
    }
    expect(lines.join('\n')).not.to.match(/EADDRINUSE/);
    const keyLine = await until('the keys', 5_000, async () => lines.find((line) => line.startsWith('KEYS ')), log);
    const catalogueKey = keyLine.slice(5).split(',').find((entry) => entry.endsWith(':catalogue'))!.split(':')[0]!;

    // The demo catalogue projected, as the first projector's metrics say (its operations port has no rate limit,
    // unlike the public one, which the test's polling would soon exhaust): then served by the replicas.
    await until('the four projections caught up with the seeded history', 120_000, async () => {
      const metrics = await (await fetch(`http://127.0.0.1:${PORTS.projectors[0]}/metrics`)).text();
      const lags = [...metrics.matchAll(/^projection_lag_events\{projection="\w+"\} (\d+)$/gm)].map((match) => Number(match[1]));
      const head = Number(/^event_store_head_position (\d+)$/m.exec(metrics)?.[1] ?? 0);
      return lags.length === 4 && lags.every((events) => events === 0) && head > 0 ? true : undefined;
    }, log);
    const base = (port: number) => `http://127.0.0.1:${port}`;
    const first = await fetch(`${base(PORTS.api[0]!)}/api/public/catalogue?limit=1`);
    expect(first.status, await first.clone().text()).to.equal(200);
    const reference = ((await first.json()) as { watches: { reference: string }[] }).watches[0]!.reference;

    // A price change through the admin API reaches every replica.
    const price = 12_345 + (Date.now() % 1_000);
    const changed = await fetch(`http://127.0.0.1:${PORTS.admin}/admin/watches/${reference}/price`, {
      method: 'PUT', headers: { authorization: `Bearer ${catalogueKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ price_eur: price }),
    });
    expect(changed.status, await changed.clone().text()).to.equal(200);
    const appended = Date.now();
    const servedAfter: number[] = [];
    for (const port of PORTS.api) {
      await until(`the new price on ${port}`, 20_000, async () => {
        const answer = await fetch(`${base(port)}/api/public/catalogue/${reference}`);
        return answer.status === 200 && ((await answer.json()) as { price_eur: number }).price_eur === price ? true : undefined;
      }, log);
      servedAfter.push(Date.now() - appended);
    }
    console.log(`      price change served by both replicas after ${servedAfter.join(' and ')} ms (polled every 250 ms)`);

    // The block's audit key reads the transparency log at the admin API's base URL, the checkpoint the replicas sign.
    const auditKey = keyLine.slice(5).split(',').find((entry) => entry.endsWith(':audit'))?.split(':')[0];
    expect(auditKey, 'the block makes an audit key').to.be.a('string');
    const audited = await fetch(`http://127.0.0.1:${PORTS.admin}/admin/transparency/checkpoint`, { headers: { authorization: `Bearer ${auditKey}` } });
    expect(audited.status, await audited.clone().text()).to.equal(200);
    expect((await audited.text()).split('\n')[0], 'the origin, PUBLIC_BASE_URL being unset').to.equal('localhost/watchcat/events');

    // Prometheus scrapes the five operations ports and answers the lag from their metrics.
    const targets = await until('five targets up in Prometheus', 60_000, async () => {
      const up = await promQuery('up');
      return up.length === 5 && up.every((sample) => sample.value[1] === '1') ? up : undefined;
    }, log);
    expect(targets.map((sample) => sample.metric['instance']).sort()).to.deep.equal(
      [...PORTS.apiOps, PORTS.services, ...PORTS.projectors].map((port) => `127.0.0.1:${port}`).sort(),
    );
    const lag = await until('a lag of 0 events for the five projections', 30_000, async () => {
      const samples = await promQuery('max by (projection) (projection_lag_events{job="projector"})');
      return samples.length === 5 && samples.every((sample) => sample.value[1] === '0') ? samples : undefined;
    }, log);
    expect(lag.map((sample) => sample.metric['projection']).sort()).to.deep.equal(['collections', 'configurators', 'serials', 'transparency-log', 'watches']);
    const [head] = await promQuery('max(event_store_head_position)');
    const positions = await promQuery('max by (projection) (projection_position)');
    for (const sample of positions) expect(sample.value[1], sample.metric['projection']).to.equal(head!.value[1]);
    await until('the price command counted by the services process', 10_000, async () => {
      const [count] = await promQuery('sum(commands_total{command="ChangeWatchPrice", outcome="appended"})');
      return count?.value[1] === '1' ? true : undefined;
    }, log);
    const [mode] = await promQuery('sum by (mode) (rate_limit_mode{mode="redis"})');
    expect(mode?.value[1], 'both replicas share their limits through Redis').to.equal('2');
    // Every chart of the dashboard asks Prometheus something it can answer.
    const dashboard = JSON.parse(readFileSync(join(ROOT, 'infra/grafana/watchcat-dashboard.json'), 'utf8')) as { panels: { title: string; targets: { expr: string }[] }[] };
    for (const panel of dashboard.panels) for (const target of panel.targets) await promQuery(target.expr);

    // SIGTERM to every process of the block: each stops, none logs an error or a stack.
    process.kill(-shell.pid!, 'SIGTERM');
    // The shell ends first; its output closes once the last process that shares it has stopped.
    const code = await new Promise<number | null>((resolve) => shell!.once('close', (exitCode) => resolve(exitCode)));
    const stops = lines.filter((line) => /"msg":"[^"]* stopped"/.test(line));
    expect(stops.length, log()).to.equal(5);
    const errors = lines.filter((line) => /"level":(50|60)/.test(line) || line.includes('"stack":') || /^\s+at /.test(line));
    expect(errors, log()).to.deep.equal([]);
    console.log(`      whole run ${Date.now() - started} ms, shell exit ${code}`);
  });
});
