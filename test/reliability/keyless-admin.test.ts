/**
 * Issue 29, item 4: without `ADMIN_API_KEYS`, `npm start` (main.ts) and `start:services` (services/main.ts) both
 * start, and both say in their log that the admin API refuses every request and how to give it a key (on main at
 * 204df55, `npm start` said nothing and `start:services` gave no way forward).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startWatchcatProcess } from '../support/watchcat-process.ts';

const ENTRIES = [['npm start', 'main.ts', /watchcat is serving/], ['start:services', 'services/main.ts', /admin API listening/]] as const;

describe('an admin API without keys', function () {
  this.timeout(60_000);

  for (const [name, entry, up] of ENTRIES) {
    it(`${name} starts and logs that every admin request is refused, and how to set ADMIN_API_KEYS`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'watchcat-keyless-'));
      const child = startWatchcatProcess(name, entry, {
        ADMIN_API_KEYS: '', DATA_DIR: dir, PORT: '0', OPS_PORT: '0', ADMIN_PORT: '0', HEALTH_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info',
        READ_SNAPSHOT_SECONDS: '0', MONGODB_URL: '', REDIS_URL: '', EVENTSTORE_URL: '',
      });
      try {
        await child.waitForLine(up);
        await child.waitForLine(/ADMIN_API_KEYS/, 5_000);
        const warning = child.lines.find((line) => line.includes('ADMIN_API_KEYS'))!;
        const { level, msg } = JSON.parse(warning) as { level: number; msg: string };
        expect(level, 'a warning').to.equal(40);
        expect(msg).to.match(/refuses every request \(401\)/);
        expect(msg).to.match(/ADMIN_API_KEYS="\$\(openssl rand -hex \d+\):catalogue,\$\(openssl rand -hex \d+\):serials,\$\(openssl rand -hex \d+\):audit"/);
      } finally {
        await child.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
