/**
 * `audit projections` over a history holding events of types this version does not know (a newer writer's, during a
 * rolling deploy): every projection skips such an event, but in a serial's stream, where the serials read model marks
 * the serial (`unreadable_from`). The live read models and the shadow then agree, since both are this version's
 * reading; an audit that says only "read models match the history" tells the auditor the read models reflect the
 * whole history, when they reflect it without those events. The audit names them, and the CLI says so.
 */
import { rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { expect } from 'chai';
import Koa from 'koa';
import { pino } from 'pino';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { createProjector } from '../../projector/runner.ts';
import { adminAuth } from '../../services/admin/require-scope.ts';
import { auditProjections } from '../../services/audit/projections-audit.ts';
import { projectionsAuditRoute } from '../../services/audit/projections-audit.route.ts';
import { eventMetadata } from '../fixtures/events.ts';
import { appendAsNewerVersion } from '../support/newer-writer.ts';
import { hour, writeKnownHistory, type TempStore } from './support/audit-history.ts';
import { watchcat } from './support/watchcat-run.ts';

const newer = (n: number) => ({ ...eventMetadata({ occurred_at: hour(n), correlation_id: `corr-${n}` }), schema_version: 2 });
const AUDIT_KEY = 'audit-key-0123456789abcdef0123456789abcdef';

describe('audit projections over a history holding events this version cannot read', () => {
  let store: TempStore;
  let eventStore: EventStore;
  let live: ReadStore;
  before(async () => {
    // The known history holds positions 1 to 12; 13 is a new type in a watch's stream, 14 one in a serial's.
    store = await writeKnownHistory();
    appendAsNewerVersion(store.file, 'watch-RG-1', [{ type: 'WatchCertified', data: { reference: 'RG-1', certificate: 'COSC' }, metadata: newer(10) }]);
    appendAsNewerVersion(store.file, 'serial-SN-0001', [{ type: 'SerialMarkedCounterfeit', data: { serial: 'SN-0001' }, metadata: newer(11) }]);
    eventStore = openSqliteEventStore(store.file);
    live = createMemoryReadStore();
    const queue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
    const projector = createProjector({ eventStore, readStore: live, queue, logger: pino({ level: 'silent' }), batchSize: 5 });
    await projector.catchUp();
    await queue.close();
  });
  after(async () => {
    await live.close();
    await eventStore.close();
    rmSync(store.dataDir, { recursive: true, force: true });
  });

  it('names each event the shadow rebuild could not read, with its position, type and stream', async () => {
    const audit = await auditProjections({ eventStore, live });
    expect(audit.differences).to.deep.equal([]);
    expect(audit.unreadable).to.deep.equal([
      { position: 13, type: 'WatchCertified', stream: 'watch-RG-1', unreadable: 'unknown event type' },
      { position: 14, type: 'SerialMarkedCounterfeit', stream: 'serial-SN-0001', unreadable: 'unknown event type' },
    ]);
  });

  it('the CLI does not say the read models match the history without saying which events they do not reflect', async () => {
    const app = new Koa();
    app.silent = true;
    app.use(projectionsAuditRoute({ eventStore, live, auth: adminAuth({ ADMIN_API_KEYS: `${AUDIT_KEY}:audit`, ADMIN_AUTH_FAILURES_PER_MINUTE: 10 }) }));
    const server: Server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const result = await watchcat({ ...store.env, ADMIN_API_KEYS: `${AUDIT_KEY}:audit` }, 'audit', 'projections', '--server', url);
      expect(result.code, result.notes.join('\n')).to.equal(0);
      const said = [...result.out, ...result.notes].join('\n');
      expect(said).to.contain('2 event(s) of the history this version cannot read');
      expect(said).to.contain('position 13 (WatchCertified, watch-RG-1): unknown event type');
      expect(said).to.contain('position 14 (SerialMarkedCounterfeit, serial-SN-0001): unknown event type');
      expect(result.out.at(-1)).to.not.equal('read models match the history: watches at 14, collections at 14, configurators at 14, serials at 14, transparency-log at 14');
    } finally {
      server.close();
      await once(server, 'close');
    }
  });
});
