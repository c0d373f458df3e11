/**
 * A verification read through a reading whose control documents are older than the serial document it reads: the
 * read store's "snapshot" pins the control documents and the live generation, not the documents' contents (MongoDB
 * reads, and the memory store's live tables, see what is stored when they run), and a request reuses the latest
 * reading for up to half a snapshot's life. The serials projector writes a batch's documents before its checkpoint, so
 * between the two (or within that reuse) a verification can read a recovery its stamp does not hold: it must not then
 * sign AUTHENTIC at the position of before the recovery (where the serial stood stolen), pinning a tree of the log that
 * holds the theft and not the recovery: an AUTHENTIC whose own tree holds the theft (issue 40 the other way round).
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { answerCheckpoint } from '../../read-api/transparency/answer-checkpoint.ts';
import { startTransparencyLog, type TransparencyLog } from '../../read-api/transparency/log-publisher.ts';
import { transparencyRoutes } from '../../read-api/transparency/transparency-routes.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import type { SerialDoc } from '../../shared/read-model/documents/documents.ts';
import { PROJECTIONS } from '../../shared/read-model/projections/index.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { serialRecovered, serialRegistered, serialReportedStolen } from '../fixtures/events.ts';
import { send } from '../support/http.ts';
import { MCP_HEADERS } from '../support/mcp-client.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';
import { logProjection } from '../support/signed-log.ts';

const SERIAL = 'AC-2024-0042';
const VERIFY_PATH = `/api/public/verify/${SERIAL}`;

describe('a verification whose serial document is ahead of its reading\'s stamp', function () {
  this.timeout(60_000);
  let dir: string;
  let events: EventStore;
  let store: ReadStore;
  let log: TransparencyLog;
  let api: ReadApiUnderTest;
  let stolenAt: number;
  let recoveredAt: number;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'watchcat-data-ahead-'));
    events = openSqliteEventStore(join(dir, 'events.sqlite3'));
    await events.append(`serial-${SERIAL}`, [serialRegistered(SERIAL)], 'no_stream');
    stolenAt = (await events.append(`serial-${SERIAL}`, [serialReportedStolen(SERIAL)], 0)).position;
    store = createMemoryReadStore();
    await rebuild({ eventStore: events, readStore: store, projections: [...PROJECTIONS] });
    // The recovery, put in the log only (on another worker): the serials projector has not written it yet.
    recoveredAt = (await events.append(`serial-${SERIAL}`, [serialRecovered(SERIAL)], 1)).position;
    await rebuild({ eventStore: events, readStore: store, projections: [logProjection] });
    log = await startTransparencyLog({ readStore: store, key: generateKeyPairSync('ed25519').privateKey, origin: 'watch.example/watchcat/events', logger: createLogger('silent', 'data-ahead') });
    api = await startReadApiUnderTest({ readStore: store, extraRoutes: [transparencyRoutes(log)], checkpoint: answerCheckpoint(log) });
  });
  after(async () => {
    await api?.close();
    await log?.stop();
    await events?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The serials projector's data write of the recovery, its checkpoint not written yet (the moment between the two). */
  async function recoveryWrittenBeforeItsCheckpoint(): Promise<void> {
    // A reading taken now, reused by the requests that follow within half a snapshot's life.
    await api.running.refreshReadModels();
    const doc = await store.get<SerialDoc>('serials', SERIAL);
    const recovered: SerialDoc = { ...doc!, status: 'authentic', position: recoveredAt };
    await store.write('serials', [{ put: recovered }]);
  }

  it('never signs AUTHENTIC at a position where the serial stood stolen (HTTP), nor gives that answer again from a cache', async () => {
    await recoveryWrittenBeforeItsCheckpoint();
    // Twice: the second may be answered from the answer cache, under the stamp of the first one's reading.
    for (const attempt of ['first', 'repeated']) {
      const answer = await fetch(`${api.url}${VERIFY_PATH}`, { headers: { 'Accept-Signature': 'sig1=("@status")' } });
      const body = await answer.json() as { verification_status: string };
      const position = Number(answer.headers.get('x-read-model-position'));
      const pinned = Number(answer.headers.get('watchcat-checkpoint')?.split(' ')[0]);
      if (body.verification_status === 'AUTHENTIC') {
        // The log holds the three events: a tree of the registration and the theft only is one its answer contradicts.
        expect(log.checkpoint()!.size).to.equal(3);
        expect(pinned, `${attempt}: the pinned tree holds the recovery the answer was read from`).to.equal(3);
        expect(position, `${attempt}: AUTHENTIC signed at position ${position}: the serial was stolen at ${stolenAt} and recovered only at ${recoveredAt}`)
          .to.be.at.least(recoveredAt);
      } else {
        expect(answer.status, 'refused rather than answered ahead of its stamp').to.equal(503);
      }
    }
  });

  it('never signs AUTHENTIC at a position where the serial stood stolen (MCP)', async () => {
    // Back to stolen, the checkpoint still before the recovery, then the recovery written again.
    const doc = await store.get<SerialDoc>('serials', SERIAL);
    const stolen: SerialDoc = { ...doc!, status: 'stolen', position: stolenAt };
    await store.write('serials', [{ put: stolen }]);
    await recoveryWrittenBeforeItsCheckpoint();
    const answer = await fetch(`${api.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'Accept-Signature': 'sig1=("@status")' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'verify_serial', arguments: { serial: SERIAL } } }),
    });
    const result = (await answer.json() as { result: { isError?: boolean; structuredContent?: { verification_status: string } } }).result;
    if (result.structuredContent?.verification_status === 'AUTHENTIC') {
      expect(Number(answer.headers.get('x-read-model-position')), 'AUTHENTIC signed over MCP at a position where the serial stood stolen')
        .to.be.at.least(recoveredAt);
    } else {
      expect(result.isError, 'refused rather than answered ahead of its stamp').to.equal(true);
    }
  });
});

describe('a verification kept before a change its process has since answered from a document ahead of its stamp', () => {
  let api: ReadApiUnderTest | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  /**
   * A service whose verification of AUR-0001 is kept (AUTHENTIC), then `change` written to the serial's document at
   * the next position, as its projector writes a batch's documents before their checkpoint.
   */
  async function keptThenWrittenAhead(change: (keptAt: number) => Partial<SerialDoc>): Promise<{ url: string; keptAt: number }> {
    api = await startReadApiUnderTest();
    const { url, store } = api;
    const kept = await send(url, '/api/public/verify/AUR-0001');
    expect(kept.json()).to.include({ verification_status: 'AUTHENTIC' });
    const keptAt = Number(kept.headers['x-read-model-position']);
    const doc = await store.get<SerialDoc>('serials', 'AUR-0001');
    await store.write('serials', [{ put: { ...doc!, ...change(keptAt), position: keptAt + 1 } }]);
    return { url, keptAt };
  }

  /**
   * A verification of AUR-0001 kept (AUTHENTIC), then the theft written by the serials projector before its checkpoint
   * (which still says the kept answer's position), then `newer` asks the process in a way no kept answer serves; the
   * kept URL asked again must not go back to before the theft.
   */
  async function keptThenAnsweredAhead(newer: (url: string) => Promise<{ status: string; position: number }>): Promise<void> {
    const { url, keptAt } = await keptThenWrittenAhead(() => ({ status: 'stolen' }));
    expect(await newer(url), 'read from the store: the theft, at its own position').to.deep.equal({ status: 'STOLEN', position: keptAt + 1 });
    const again = await send(url, '/api/public/verify/AUR-0001');
    expect(again.json(), 'an AUTHENTIC of before the theft after the same process answered STOLEN')
      .to.include({ verification_status: 'STOLEN' });
    expect(Number(again.headers['x-read-model-position'])).to.be.at.least(keptAt + 1);
  }

  it('over HTTP (another spelling of the URL, or another client): a STOLEN is never followed by the AUTHENTIC of before the theft', async () => {
    await keptThenAnsweredAhead(async (url) => {
      const answer = await send(url, '/api/public/verify/aur-0001');
      return { status: (answer.json() as { verification_status: string }).verification_status, position: Number(answer.headers['x-read-model-position']) };
    });
  });

  it('over MCP: a verify_serial answered STOLEN is never followed by the AUTHENTIC the HTTP cache kept from before the theft', async () => {
    await keptThenAnsweredAhead(async (url) => {
      const answer = await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: MCP_HEADERS,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'verify_serial', arguments: { serial: 'AUR-0001' } } }),
      });
      const result = (await answer.json() as { result: { structuredContent: { verification_status: string } } }).result;
      return { status: result.structuredContent.verification_status, position: Number(answer.headers.get('x-read-model-position')) };
    });
  });

  it('a serial marked with a change this version cannot read, ahead of the stamp: once refused for it, the AUTHENTIC kept from before is not given', async () => {
    // A newer writer's event in the serial's stream, as the serials projector marks it, before its checkpoint.
    const { url } = await keptThenWrittenAhead((keptAt) => ({ unreadable_from: keptAt + 1 }));
    expect((await send(url, '/api/public/verify/aur-0001')).status, 'read from the store: refused, the change unreadable').to.equal(503);
    const again = await send(url, '/api/public/verify/AUR-0001');
    expect(again.status, 'the AUTHENTIC of before a change the process has just said it cannot read').to.equal(503);
  });
});
