/**
 * README.md, back-office tools: `watchcat watch set-price | set-stock | withdraw` write to the same store as
 * the service, "so a running API shows its effect after projection"; and status: "starting the service again on
 * the same data appends nothing and leaves [`read_model.position`] as it was". The CLI runs as its own process, as
 * an operator runs it, beside the embedded service (`npm start`'s wiring) on one DATA_DIR.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startWatchcat, type RunningWatchcat } from '../../all-in-one.ts';
import { loadConfig } from '../../shared/config/config.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { send } from '../support/http.ts';

describe('the back-office CLI and restarts, seen through the public API', function () {
  // Each CLI run starts a Node process that compiles TypeScript on the fly: seconds each on a busy machine.
  this.timeout(120_000);
  let dataDir: string;
  let service: RunningWatchcat | undefined;
  let api: string;

  const start = async () => {
    service = await startWatchcat(
      // The test polls status far more often than the default 60 a minute.
      loadConfig({ DATA_DIR: dataDir, PORT: '0', OPS_PORT: '0', ADMIN_PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '100000' }),
      createLogger('silent', 'cli-through-api-test'),
    );
    api = `http://127.0.0.1:${service.ports.public}`;
  };
  const stop = async () => {
    await service?.close();
    service = undefined;
  };
  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'watchcat-cli-api-'));
    await start();
  });
  afterEach(async () => {
    await stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  function watchcat(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(process.execPath, ['bin/watchcat.js', ...args], {
        env: { PATH: process.env.PATH, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
      }, (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }));
    });
  }
  const get = async (path: string) => (await send(api, path)).json();
  const position = async (): Promise<number> => (await get('/api/public/status')).read_model.position;

  /** Waits until the API serves the read model at `target` or later (projection follows the CLI's appends). */
  async function until(target: number): Promise<void> {
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      if (await position() >= target) return;
      await sleep(20);
    }
    throw new Error(`the API did not reach position ${target}: it serves ${await position()}`);
  }

  it('shows a price set, a stock status set and a withdrawal made with the CLI', async () => {
    const before = await position();
    const tempo = async () => (await get('/api/public/collections')).collections.find((c: { code: string }) => c.code === 'tempo');
    const tempoBefore = await tempo();
    // The demo has AUR-CH-001 in low stock; each command below changes something, so each appends one event.
    expect(await get('/api/public/catalogue/AUR-CH-001')).to.include({ stock_status: 'low_stock' });

    for (const args of [['watch', 'set-price', 'aur-ch-001', '13999.99'], ['watch', 'set-stock', 'AUR-CH-001', 'out_of_stock'], ['watch', 'withdraw', 'AUR-CH-002']]) {
      const outcome = await watchcat(...args);
      expect(outcome.code, `${args.join(' ')}: ${outcome.stderr}`).to.equal(0);
    }
    await until(before + 3);

    const detail = await get('/api/public/catalogue/AUR-CH-001');
    expect(detail).to.include({ price_eur: 13999.99, stock_status: 'out_of_stock', in_stock: false });
    const withdrawn = await send(api, '/api/public/catalogue/AUR-CH-002');
    expect(withdrawn.status).to.equal(404);
    expect(withdrawn.json()).to.deep.equal({ detail: 'Watch not found' });
    const listed = (await get('/api/public/catalogue?collection=tempo&limit=100')).watches.map((w: { reference: string }) => w.reference);
    expect(listed).to.include('AUR-CH-001').and.not.include('AUR-CH-002');
    expect((await tempo()).product_count).to.equal(tempoBefore.product_count - 1);
  });

  it('leaves read_model.position as it was, and appends nothing, when the service starts again on the same data', async () => {
    const first = await position();
    expect(first).to.be.above(0);
    await stop();
    await start();
    expect(await position()).to.equal(first);
    expect((await get('/api/public/catalogue?limit=1')).total).to.be.above(0);
    await stop();
    const store = openSqliteEventStore(join(dataDir, 'events.sqlite3'));
    try {
      expect(await store.headPosition()).to.equal(first);
    } finally {
      await store.close();
    }
  });
});
