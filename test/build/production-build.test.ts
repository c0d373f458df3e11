/**
 * The production build (issue 14, item 1): `npm run build` compiles the sources to dist/, and the compiled
 * processes run under plain `node`, with no TypeScript loader: the `watchcat` bin and the all-in-one server
 * answering the public API. The start time is measured by `npm run bench:start`, not here.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { registerLegSuite } from '../support/legs.ts';
import { freePort } from '../support/redis-server.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
/** A child's environment without what would let it load TypeScript: no NODE_OPTIONS carrying `--import tsx`. */
const plainEnv = (extra: Record<string, string>) => ({ PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...extra });

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('production build: compiled JavaScript under plain node', function () {
  this.timeout(120_000);
  registerLegSuite('build', this);
  let dataDir: string;
  let server: ChildProcess | undefined;

  before(async () => {
    await run('npm', ['run', 'build'], { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: '' } });
    dataDir = mkdtempSync(join(tmpdir(), 'watchcat-build-'));
  });
  after(() => {
    server?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('emits JavaScript only, for every entry point, with no import of a .ts file left', () => {
    for (const entry of ['main.js', 'read-api/main.js', 'projector/main.js', 'services/main.js', 'services/cli/watchcat.js']) {
      expect(existsSync(join(ROOT, 'dist', entry)), entry).to.equal(true);
    }
    const emitted = filesUnder(join(ROOT, 'dist')).filter((file) => file.endsWith('.js'));
    const tsImports = emitted.filter((file) => /from '\.{1,2}\/[^']*\.ts'|import\('\.{1,2}\/[^']*\.ts'\)/.test(readFileSync(file, 'utf8')));
    expect(tsImports).to.deep.equal([]);
  });

  it('runs the watchcat bin with plain node', async () => {
    const { stdout } = await run(process.execPath, ['bin/watchcat.js', '--help'], { cwd: ROOT, env: plainEnv({}) });
    expect(stdout).to.match(/^Usage: watchcat/m);
    expect(stdout).to.match(/serial/);
  });

  it('starts the all-in-one server from dist/ with plain node and answers the public API', async () => {
    const [port, opsPort, adminPort] = [await freePort(), await freePort(), await freePort()];
    server = spawn(process.execPath, ['dist/main.js'], {
      cwd: ROOT, stdio: 'ignore',
      env: plainEnv({ DATA_DIR: dataDir, PORT: String(port), OPS_PORT: String(opsPort), ADMIN_PORT: String(adminPort) }),
    });
    const deadline = Date.now() + 60_000;
    let answer: Response | undefined;
    while (!answer && Date.now() < deadline) {
      expect(server.exitCode, 'the server exited').to.equal(null);
      answer = await fetch(`http://127.0.0.1:${port}/api/public/catalogue?limit=1`).catch(() => undefined);
      if (!answer) await sleep(50);
    }
    expect(answer?.status).to.equal(200);
    const body = await answer!.json() as { watches: { reference: string }[]; total: number };
    expect(body.watches).to.have.length(1);
    expect(body.total).to.be.greaterThan(1);
  });
});
