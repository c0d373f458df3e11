import { rmSync } from 'node:fs';
import { expect } from 'chai';
import { hour, writeKnownHistory, type TempStore } from './support/audit-history.ts';
import { watchcat } from './support/watchcat-run.ts';

describe('watchcat history: time window and correlation filters', () => {
  let store: TempStore;
  before(async () => {
    store = await writeKnownHistory();
  });
  after(() => rmSync(store.dataDir, { recursive: true, force: true }));

  const positions = async (...args: string[]) => {
    const result = await watchcat(store.env, 'history', '--json', ...args);
    expect(result.code, result.notes.join('\n')).to.equal(0);
    return result.out.map((line) => (JSON.parse(line) as { position: number }).position);
  };

  it('--since and --until keep the events that occurred inside the window, both ends included', async () => {
    expect(await positions('--since', hour(3), '--until', hour(5))).to.deep.equal([4, 5, 6]);
    expect(await positions('--since', hour(8))).to.deep.equal([9, 10, 11, 12]);
    expect(await positions('--until', '2025-03-01T09:59:59Z')).to.deep.equal([1, 2]);
  });

  it('--correlation keeps the events of one correlation id, combined with the stream and the window', async () => {
    expect(await positions('--correlation', 'corr-8')).to.deep.equal([9, 10, 11]);
    expect(await positions('watch-rg-2', '--correlation', 'corr-5')).to.deep.equal([6]);
    expect(await positions('--correlation', 'corr-8', '--since', hour(9))).to.deep.equal([]);
  });

  it('each JSON line carries position, revision, time, actor, correlation id and data', async () => {
    const result = await watchcat(store.env, 'history', 'watch-RG-1', '--json', '--since', hour(3));
    expect(result.out.map((line) => JSON.parse(line) as unknown)).to.deep.equal([{
      position: 4, stream: 'watch-RG-1', revision: 1, id: (JSON.parse(result.out[0]!) as { id: string }).id,
      type: 'WatchPriceChanged', data: { reference: 'RG-1', price_cents: 1_250_000, previous_price_cents: 1_000_000 },
      metadata: { correlation_id: 'corr-3', causation_id: 'test-causation', actor: 'auditor-test-3', occurred_at: hour(3), schema_version: 1 },
    }]);
  });

  it('the table shows the correlation id of every event', async () => {
    const result = await watchcat(store.env, 'history', '--correlation', 'corr-6');
    expect(result.out[0]).to.match(/POSITION\s+OCCURRED AT\s+STREAM\s+REV\s+TYPE\s+ACTOR\s+CORRELATION\s+DATA/);
    expect(result.out.slice(1)).to.have.length(1);
    expect(result.out[1]).to.match(/^7\s+2025-03-01T14:00:00.000Z\s+serial-SN-0001\s+1\s+SerialReportedStolen\s+auditor-test-6\s+corr-6\s+serial=SN-0001$/);
  });

  it('a time that is not a timestamp is a usage error naming the form expected', async () => {
    const result = await watchcat(store.env, 'history', '--since', 'last tuesday');
    expect(result.code).to.equal(2);
    expect(result.notes.join('\n')).to.contain('expected an ISO 8601 timestamp, e.g. 2025-03-01T12:00:00Z');
    expect(result.out).to.deep.equal([]);
  });

  it('reads a time padded with spaces as that time', async () => {
    expect(await positions('--since', ` ${hour(8)} `, '--until', `${hour(8)}\n`)).to.deep.equal([9, 10, 11]);
  });
});
