/**
 * The compose file's healthcheck commands, run as Docker would run them (`node -e …` in the container) against the
 * real processes: the admin API and the projector answer on their health port, the read API on its operations
 * port; and a command finds a process unhealthy when nothing answers. Each process then stops cleanly on SIGTERM.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { CORE_SCHEMA, load, mergeTag } from 'js-yaml';
import { spawnTs } from '../support/child-process.ts';
import { freePort } from '../support/redis-server.ts';
import { mongoUrl } from '../support/mongodb-leg.ts';
import { cannotRun } from '../support/legs.ts';

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const compose = load(readFileSync(root('infra/docker-compose.yml'), 'utf8'), { schema: CORE_SCHEMA.withTags(mergeTag) }) as {
  services: Record<string, { healthcheck: { test: string[] } }>;
};

/** The script of a service's `["CMD", "node", "-e", script]` healthcheck. */
const script = (service: string) => compose.services[service]!.healthcheck.test[3]!;

/** Runs a healthcheck script as the container would, with the process's port settings; resolves its exit code. */
function runHealthcheck(service: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['-e', script(service)], { env: { ...process.env, ...env }, timeout: 5_000 }, (error) => {
      resolve(error ? (typeof error.code === 'number' ? error.code : 1) : 0);
    });
  });
}

/** Waits until the healthcheck passes; past `ms`, fails with what `story` tells of the processes. */
async function healthyWithin(service: string, env: NodeJS.ProcessEnv, ms: number, story: () => Promise<string>): Promise<void> {
  const deadline = Date.now() + ms;
  while ((await runHealthcheck(service, env)) !== 0) {
    if (Date.now() > deadline) throw new Error(`${service}: healthcheck not passing within ${ms} ms\n${await story()}`);
    await sleep(200);
  }
}

/** What a process answers at `url` (its readiness, say), or why it answers nothing. */
const answerAt = (url: string): Promise<string> =>
  fetch(url).then(async (answer) => `${answer.status} ${await answer.text()}`, (error: unknown) => `no answer: ${String(error)}`);

describe('compose healthchecks against the real processes', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'watchcat-health-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // The read API alone needs the MongoDB that projectors fill (it refuses an in-memory store nothing would fill).
  const cases = [
    { service: 'services', main: 'services/main.ts', portVariable: 'HEALTH_PORT', mongo: false },
    { service: 'projector', main: 'projector/main.ts', portVariable: 'HEALTH_PORT', mongo: false },
    { service: 'api', main: 'read-api/main.ts', portVariable: 'OPS_PORT', mongo: true },
  ];
  for (const { service, main, portVariable, mongo } of cases) {
    it(`${service}: unhealthy while nothing answers, healthy once ${main} runs, and a clean stop on SIGTERM`, async function () {
      if (mongo && mongoUrl === undefined) {
        cannotRun(this, 'MongoDB', `MONGODB_URL is not set, so ${main} cannot run`, 'MONGODB_URL is not set (npm run test:mongo runs it)');
      }
      const portEnv = { [portVariable]: String(await freePort()) };
      expect(await runHealthcheck(service, portEnv)).to.equal(1);
      const shared = {
        DATA_DIR: dir, HOST: '127.0.0.1', LOG_LEVEL: 'warn', SEED_DEMO: 'false',
        EVENTSTORE_URL: '', MONGODB_URL: mongo ? mongoUrl! : '', MONGODB_DB: `health_${randomBytes(4).toString('hex')}`, REDIS_URL: '',
      };
      const child = spawnTs(root(main), [], {
        ...shared, ...portEnv, PORT: String(await freePort()), ADMIN_PORT: String(await freePort()),
        ADMIN_API_KEYS: `${randomBytes(24).toString('hex')}:catalogue`,
      });
      // The API is ready (its healthcheck is /readyz) only once a projector has built the read models it serves.
      const projector = mongo ? spawnTs(root('projector/main.ts'), [], { ...shared, HEALTH_PORT: String(await freePort()) }) : undefined;
      try {
        if (mongo) expect(await runHealthcheck(service, portEnv), 'ready before any projector ran').to.equal(1);
        await healthyWithin(service, portEnv, 30_000, async () => [
          `${main} /readyz: ${await answerAt(`http://127.0.0.1:${portEnv[portVariable]}/readyz`)}`,
          `${main} said:\n${child.lines.slice(-30).join('\n')}`,
          ...(projector ? [`projector/main.ts said:\n${projector.lines.slice(-30).join('\n')}`] : []),
        ].join('\n'));
      } finally {
        child.child.kill('SIGTERM');
        projector?.child.kill('SIGTERM');
      }
      expect(await child.exited, child.lines.join('\n')).to.equal(0);
      if (projector) await projector.exited;
    });
  }
});
