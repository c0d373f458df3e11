/**
 * A serial whose stream holds an event of a type this version does not know (a newer writer's, during a rolling
 * deploy that updates the writers first; docs/api.md, "Honest answers"): the registry holds a change of that serial
 * whose meaning it cannot know, a theft as well as anything else. With this version's projector and read API running,
 * a newer writer appends such an event to a registered serial's stream and to a never registered serial's stream:
 * nothing parks, and the verification of those two serials is refused (503, `Retry-After: 300`, in the request's
 * language) over HTTP, with `proof=index` too, and over MCP (an `isError` result), never AUTHENTIC or NOT_FOUND;
 * the other serials are answered as before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { CollectionDefined, WatchPublished } from '../../shared/events/index.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { createProjector } from '../../projector/runner.ts';
import type { Projector } from '../../projector/projector.ts';
import { PROJECTION_RETRY_POLICY } from '../../projector/retry-policy.ts';
import { createCommandService } from '../../services/write/command-service.ts';
import { collectionDefined, eventMetadata, watchPublished } from '../fixtures/events.ts';
import { send } from '../support/http.ts';
import { connectedClient } from '../support/mcp-client.ts';
import { appendAsNewerVersion } from '../support/newer-writer.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';
import { until } from '../support/until.ts';

const WATCH = 'TMP-1';
/** Registered, then changed by a newer writer; never registered, changed by a newer writer; registered, left alone. */
const [CHANGED, UNREGISTERED, UNTOUCHED] = ['TMP-0001', 'TMP-0404', 'TMP-0002'];

const DETAIL = {
  en: 'The registry holds a change of this serial number that this version of the service cannot read; it cannot be checked until the registry is updated.',
  fr: 'Le registre contient une modification de ce numéro de série que cette version du service ne sait pas lire ; il ne peut pas être vérifié tant que le registre n\'est pas mis à jour.',
};

describe('verify a serial whose stream holds an event of a type this version does not know', function () {
  this.timeout(30_000);
  let dir: string;
  let eventStore: EventStore;
  let readStore: ReadStore;
  let projector: Projector;
  let api: ReadApiUnderTest;
  let client: Client;
  /** The registration after the newer writer's events: once served, the projector has passed them. */
  let lastRegistration: number;

  const get = (path: string) => send(api.url, path);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'watchcat-unreadable-serial-'));
    const file = join(dir, 'events.sqlite3');
    eventStore = openSqliteEventStore(file);
    readStore = createMemoryReadStore();
    const commands = createCommandService(eventStore, { actor: 'older-services' });
    await commands.defineCollection(collectionDefined('tempo').data as CollectionDefined);
    await commands.publishWatch(watchPublished(WATCH, 'tempo').data as WatchPublished);
    for (const serial of [CHANGED, UNTOUCHED]) await commands.registerSerial(serial, WATCH, 2024);
    projector = createProjector({
      eventStore, readStore, queue: createInlineJobQueue(PROJECTION_RETRY_POLICY),
      logger: createLogger('silent', 'unreadable-serial-test'), pollIntervalMs: 50, backoff: { firstMs: 5, maxMs: 20 },
    });
    projector.start();
    api = await startReadApiUnderTest({ readStore });

    const newer = { ...eventMetadata({ actor: 'newer-services' }), schema_version: 2 };
    for (const serial of [CHANGED, UNREGISTERED]) {
      appendAsNewerVersion(file, `serial-${serial}`, [{ type: 'SerialTransferred', data: { serial, to: 'a new owner' }, metadata: newer }]);
    }
    ({ position: lastRegistration } = await commands.registerSerial('TMP-0003', WATCH, 2024));
    await until('the registration after the newer events served', async () => (await get('/api/public/status')).json().read_model.position >= lastRegistration, 20_000);
    client = await connectedClient(api.url);
  });
  after(async () => {
    await client?.close();
    await projector?.stop();
    await api?.close();
    await readStore?.close();
    await eventStore?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Each serial's answer, the others as before: registered AUTHENTIC, never registered NOT_FOUND. */
  const OTHERS = [[UNTOUCHED, 'AUTHENTIC'], ['TMP-0003', 'AUTHENTIC'], ['TMP-9999', 'NOT_FOUND']] as const;

  it('over HTTP: refuses both serials with 503 and a long Retry-After, in English and in French, proof=index too; answers the others as before; parks nothing', async () => {
    for (const serial of [CHANGED, UNREGISTERED]) {
      for (const [query, detail] of [['', DETAIL.en], ['?lang=fr', DETAIL.fr], ['?proof=index', DETAIL.en]] as const) {
        const answer = await get(`/api/public/verify/${serial.toLowerCase()}${query}`);
        expect(answer.status, `${serial}${query}`).to.equal(503);
        expect(answer.headers['retry-after'], `${serial}${query}`).to.equal('300');
        expect(answer.json(), `${serial}${query}`).to.deep.equal({ detail });
      }
    }
    for (const [serial, status] of OTHERS) {
      const answer = await get(`/api/public/verify/${serial}?lang=fr`);
      expect(answer.status, serial).to.equal(200);
      expect(answer.json(), serial).to.include({ serial, verification_status: status });
    }
    const ready = await send(api.opsUrl, '/readyz');
    expect(ready.status, '/readyz').to.equal(200);
    expect(ready.json().checks.parked_projections ?? [], 'parked').to.deep.equal([]);
    const status = (await get('/api/public/status')).json();
    expect(status.status).to.equal('ok');
    for (const { name, position } of status.read_model.projections as { name: string; position: number }[]) expect(position, name).to.be.at.least(lastRegistration);
  });

  it('over MCP: verify_serial answers both serials with an isError result carrying the same detail and the HTTP answer\'s Retry-After, and the others as before', async () => {
    for (const serial of [CHANGED, UNREGISTERED]) {
      const retryAfter = Number((await get(`/api/public/verify/${serial}`)).headers['retry-after']);
      for (const lang of ['en', 'fr'] as const) {
        const result = await client.callTool({ name: 'verify_serial', arguments: { serial, lang } });
        expect(result.isError, `${serial} ${lang}`).to.equal(true);
        expect(JSON.parse((result.content as { text: string }[])[0]!.text), `${serial} ${lang}`).to.deep.equal({ detail: DETAIL[lang] });
        expect(result._meta, `${serial} ${lang}: when to try again, as the HTTP answer says`).to.deep.equal({ retry_after: retryAfter });
      }
    }
    for (const [serial, status] of OTHERS) {
      const result = await client.callTool({ name: 'verify_serial', arguments: { serial } });
      expect(result.isError, serial).to.not.equal(true);
      expect(result.structuredContent, serial).to.include({ verification_status: status });
    }
  });
});
