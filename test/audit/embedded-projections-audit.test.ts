import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWatchcat, type RunningWatchcat } from '../../all-in-one.ts';
import { loadConfig } from '../../shared/config/config.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import type { WatchDoc } from '../../shared/read-model/documents/documents.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { run } from '../../services/cli/program.ts';
import { createCliContext } from '../../services/cli/cli-context.ts';
import { formatMark, historyMark } from '../../services/audit/history-mark.ts';
import { writeKnownHistory } from './support/audit-history.ts';

const AUDIT_KEY = 'audit-key-0123456789abcdef0123456789abcdef';
const CATALOGUE_KEY = 'catalogue-key-0123456789abcdef0123456789ab';
const ADMIN_API_KEYS = `${CATALOGUE_KEY}:catalogue,${AUDIT_KEY}:audit`;

describe('audit projections against the embedded server', function () {
  this.timeout(120_000);
  let dataDir: string;
  let service: RunningWatchcat;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'watchcat-audit-'));
    service = await startWatchcat(
      loadConfig({ DATA_DIR: dataDir, PORT: '0', OPS_PORT: '0', ADMIN_PORT: '0', HOST: '127.0.0.1', ADMIN_API_KEYS }),
      createLogger('silent', 'audit-test'),
    );
  });
  after(async () => {
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The `?history=` of the service's own history, as the CLI sends it. */
  async function ownHistory(): Promise<string> {
    const store = openSqliteEventStore(join(dataDir, 'events.sqlite3'));
    try {
      return `history=${formatMark((await historyMark(store))!)}`;
    } finally {
      await store.close();
    }
  }

  /** Runs `watchcat audit projections --server ...` in this process and returns its exit code and output. */
  async function auditCli(cliDataDir = dataDir): Promise<{ code: number; out: string[]; notes: string[] }> {
    const out: string[] = [];
    const notes: string[] = [];
    const context = createCliContext({ DATA_DIR: cliDataDir, ADMIN_API_KEYS }, { out: (line) => out.push(line), note: (line) => notes.push(line) });
    const code = await run(['node', 'watchcat', 'audit', 'projections', '--server', `http://127.0.0.1:${service.ports.ops}`], context);
    return { code, out, notes };
  }

  it('finds no difference on a freshly started service', async () => {
    const result = await auditCli();
    expect(result.code, result.notes.join('\n')).to.equal(0);
    expect(result.out.at(-1)).to.match(/^read models match the history/);
  });

  it('refuses the audit without a key of the audit scope (issue 17, finding 2)', async () => {
    const audit = (headers: Record<string, string>) => fetch(`http://127.0.0.1:${service.ports.ops}/audit/projections`, { headers });
    const none = await audit({});
    expect(none.status).to.equal(401);
    expect(await none.json()).to.deep.equal({ detail: 'a valid API key is required (Authorization: Bearer KEY or X-API-Key)' });
    expect((await audit({ authorization: `Bearer ${CATALOGUE_KEY}` })).status).to.equal(403);
  });

  it('runs one audit at a time: a second caller is told at once that one is running (issue 17, finding 2)', async () => {
    const history = await ownHistory();
    const audit = () => fetch(`http://127.0.0.1:${service.ports.ops}/audit/projections?${history}`, { headers: { authorization: `Bearer ${AUDIT_KEY}` } });
    const answers = await Promise.all([audit(), audit(), audit()]);
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).to.deep.equal([200, 429, 429]);
    const busy = answers.find((answer) => answer.status === 429)!;
    expect(busy.headers.get('retry-after')).to.equal('5');
    expect(await busy.json()).to.deep.equal({ detail: 'an audit is already running: try again when it has finished' });
    expect((await audit()).status, 'free again once it ended').to.equal(200);
  });

  it('refuses to audit for a CLI pointed at another history: the server it reaches serves its own (issue 14, item 4)', async () => {
    const other = await writeKnownHistory();
    try {
      const result = await auditCli(other.dataDir);
      expect(result.code).to.equal(1);
      expect(result.out).to.deep.equal([]);
      const store = join(other.dataDir, 'events.sqlite3');
      expect(result.notes).to.deep.equal([
        `watchcat: event store ${store}`,
        `watchcat: http://127.0.0.1:${service.ports.ops} serves another history than ${store}: start the server on that history or name its --server`,
      ]);
    } finally {
      rmSync(other.dataDir, { recursive: true, force: true });
    }
  });

  it('answers 412 to a history it does not hold, and 400 to a request that names none', async () => {
    const audit = (query: string) => fetch(`http://127.0.0.1:${service.ports.ops}/audit/projections${query}`, { headers: { authorization: `Bearer ${AUDIT_KEY}` } });
    const own = await ownHistory();
    const [, position, id] = /^history=(\d+):(.+)$/.exec(own)!;
    const stranger = await audit(`?history=${position}:00000000-0000-4000-8000-000000000000`);
    expect(stranger.status).to.equal(412);
    expect(((await stranger.json()) as { detail: string }).detail).to.match(/serves another history/);
    expect((await audit(`?history=${Number(position) + 1000}:${id}`)).status, 'an event beyond its head').to.equal(412);
    expect((await audit('')).status).to.equal(400);
  });

  it('names a read-model document altered by hand, and exits non-zero', async () => {
    const doc = await service.readStore.get<WatchDoc>('watches', 'fr:AUR-DR-001');
    expect(doc).to.not.equal(null);
    const tampered: WatchDoc = { ...doc!, price_cents: 1, position: doc!.position + 1 };
    await service.readStore.write('watches', [{ put: tampered }]);
    const result = await auditCli();
    expect(result.code).to.equal(1);
    expect(result.out.join('\n')).to.contain('fr:AUR-DR-001').and.to.contain('price_cents');
    expect(result.notes.join('\n')).to.match(/document\(s\) differ/);
  });
});
