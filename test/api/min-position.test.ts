/**
 * `X-Min-Position` against a projector that lags (docs/api.md, "Read your writes"): the routes behind the answer
 * cache, as the public app mounts them, over a store whose checkpoint only this test moves. A request asking for a
 * position the read models have not reached waits for it and is answered from it; a kept answer below it is given
 * by neither cache, one read at or past it by both, without routing or reading; one never reached within
 * `MIN_POSITION_WAIT_MS` is refused with the documented 503. (The MCP answer cache's rule: test/unit/read-api/mcp-answer-cache-behind.test.ts.)
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import Koa from 'koa';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { loadConfig } from '../../shared/config/config.ts';
import type { StoredDoc } from '../../shared/ports/read-store.ts';
import { newCheckpoint } from '../../shared/read-model/projections/control-docs.ts';
import { readSnapshotStates } from '../../shared/read-model/projections/projection-states.ts';
import { ok, type PublicOperation } from '../../shared/read-model/public-api/operations/public-operation.ts';
import { verifyOperation } from '../../shared/read-model/public-api/operations/verify.operation.ts';
import { startReadModelClock, type PolledReadModelClock } from '../../shared/read-model/public-api/read-model-clock.ts';
import { createAnswerCache } from '../../read-api/cache/answer-cache.ts';
import { canonicalAnswerCache, publicRouter } from '../../read-api/routes.ts';
import { send } from '../support/http.ts';
import { TEST_BRAND } from './support/test-app.ts';

const WAIT_MS = 1_500;

/** Requests that reached the router (past the URL cache), and answers read from the store (past both caches). */
let routed = 0;
let handled = 0;

/** What the registry holds for a serial, kept whole: an operation whose answers both caches keep. */
const { fresh: _needsFresh, ...verifyWithoutBound } = verifyOperation;
const registry: PublicOperation = {
  ...verifyWithoutBound, spec: { ...verifyOperation.spec, id: 'registryStatus' }, cacheable: true, timeField: undefined,
  async handle(request, { readStore }) {
    handled += 1;
    return ok((await readStore.get<{ status: string } & StoredDoc>('serials', request.path['serial'] as string))?.status);
  },
};

describe('X-Min-Position against a lagging projector (issue 44)', () => {
  const store = createMemoryReadStore();
  let server: Server;
  let url: string;
  let clock: PolledReadModelClock;

  /** The serial as the projector leaves it at `position`, its checkpoint confirmed there (or parked there, saying why). */
  async function projectedAt(status: string, position: number, parked?: string): Promise<void> {
    const serial = { _id: 'AUR-0001', serial: 'AUR-0001', status, position };
    await store.write('serials', [{ put: serial }]);
    const checkpoint = { ...newCheckpoint('serials', 1, 1, position), confirmed: { head: position, at: new Date(position).toISOString() } };
    await store.setControl(parked === undefined ? checkpoint : { ...checkpoint, status: 'parked', parked: { position, reason: parked } }, {}, true);
  }

  before(async () => {
    await projectedAt('authentic', 10);
    // Polled by nothing but the requests: the read models move only when this test says, and no timer reads them.
    clock = await startReadModelClock(() => readSnapshotStates(store), { intervalMs: 3_600_000 });
    const env = { clock, config: loadConfig({ MIN_POSITION_WAIT_MS: String(WAIT_MS) }), health: () => 'ok' as const, brand: TEST_BRAND, operations: [] };
    const answers = createAnswerCache({ clientKey: () => 'one client' });
    const router = publicRouter([registry], env, { cache: canonicalAnswerCache(), answers });
    const app = new Koa();
    app.use(answers.middleware);
    app.use(async (_ctx, next) => {
      routed += 1;
      await next();
    });
    app.use(router.routes());
    server = await new Promise((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    clock.stop();
    server.closeAllConnections();
    server.close();
  });

  const asking = (path: string, position: number) => send(url, path, { headers: { 'x-min-position': String(position) } });

  it('waits for a position the read models have not reached, and answers from it', async () => {
    const asked = asking('/api/public/verify/AUR-0001', 12);
    await sleep(200);
    await projectedAt('stolen', 12);
    const answer = await asked;
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.json()).to.equal('stolen');
    expect(answer.headers['x-read-model-position']).to.equal('12');
  });

  it('gives a kept answer below the position asked from neither cache, while the clock has not yet seen the store move', async () => {
    await projectedAt('recovered-at-20', 20);
    const byUrl = '/api/public/verify/AUR-0001?lang=fr';
    const byRequest = '/api/public/verify/AUR-0001?lang=fr&';
    // Kept at 20 by URL and by canonical request, then the projector moves on: nothing polls the store meanwhile.
    const kept = await asking(byUrl, 20);
    expect([kept.json(), (await send(url, byUrl)).json()]).to.deep.equal(['recovered-at-20', 'recovered-at-20']);
    expect((await send(url, byRequest)).json(), 'the canonical cache holds it').to.equal('recovered-at-20');
    await projectedAt('stolen-at-21', 21);
    expect((await send(url, byUrl)).json(), 'without the header: the kept answer').to.equal('recovered-at-20');
    for (const path of [byUrl, byRequest]) {
      const answer = await asking(path, 21);
      expect(answer.json(), path).to.equal('stolen-at-21');
      expect(answer.headers['x-read-model-position'], path).to.equal('21');
    }
  });

  it('gives a kept answer read at or past the position asked from both caches: no routing (by URL), no read of the store (by request)', async () => {
    await projectedAt('kept-at-30', 30);
    const byUrl = '/api/public/verify/AUR-0001?lang=en';
    const byRequest = '/api/public/verify/AUR-0001?lang=en&';
    // Read at 30 by its route, and kept by URL and by canonical request.
    expect((await asking(byUrl, 30)).json()).to.equal('kept-at-30');
    const [routedBefore, handledBefore] = [routed, handled];
    for (const asked of [30, 12, 0]) {
      const answer = await asking(byUrl, asked);
      expect([answer.status, answer.json(), answer.headers['x-read-model-position']], `by URL, asking ${asked}`).to.deep.equal([200, 'kept-at-30', '30']);
    }
    expect(routed - routedBefore, 'requests routed past the URL cache').to.equal(0);
    for (const asked of [30, 12]) {
      const answer = await asking(byRequest, asked);
      expect([answer.status, answer.json(), answer.headers['x-read-model-position']], `by request, asking ${asked}`).to.deep.equal([200, 'kept-at-30', '30']);
    }
    expect(handled - handledBefore, 'answers read from the store').to.equal(0);
  });

  it('refuses a position never reached within MIN_POSITION_WAIT_MS with the documented 503 and Retry-After, in the request\'s language', async () => {
    const started = performance.now();
    const answer = await asking('/api/public/verify/AUR-0001', 99);
    expect(performance.now() - started).to.be.at.least(WAIT_MS - 20);
    expect(answer.status).to.equal(503);
    expect(answer.headers['retry-after']).to.equal('1');
    expect(answer.headers['cache-control']).to.equal('no-store');
    expect(answer.json()).to.deep.equal({ detail: 'The answer is not yet up to date with your change; try again shortly' });
    const french = await asking('/api/public/verify/AUR-0001?lang=fr', 99);
    expect(french.status).to.equal(503);
    expect(french.json()).to.deep.equal({ detail: 'La réponse n\'est pas encore à jour de votre modification ; réessayez dans un instant' });
  });

  it('vouches for no position from a parked projection, whatever its checkpoint counts: refused after the wait, kept answers included', async () => {
    // The event store put back to an older copy under this read model (docs/api.md, "Stores put back from a copy"):
    // its projector parked it, and the positions its checkpoint counts are handed out again to events it never
    // applies. A theft appended since the restore takes one of them (45, below the checkpoint's 50).
    await projectedAt('authentic-from-the-copy', 50);
    const path = '/api/public/verify/AUR-0001?lang=en&&';
    expect((await asking(path, 50)).json(), 'kept at 50 while running').to.equal('authentic-from-the-copy');
    await projectedAt('authentic-from-the-copy', 50, 'the event store\'s last event is at position 45, before this projection\'s checkpoint at 50');
    await clock.refresh();
    for (const asked of [45, 1]) {
      const answer = await asking(path, asked);
      expect([answer.status, answer.json()], `asking ${asked}`)
        .to.deep.equal([503, { detail: 'The answer is not yet up to date with your change; try again shortly' }]);
    }
    expect((await asking(path, 0)).json(), 'position 0 asks for nothing').to.equal('authentic-from-the-copy');
    expect((await send(url, path)).status, 'without the header: as the parked projection\'s freshness says').to.equal(200);
    // Resumed by an operator (its checkpoint running again): vouched for again.
    await projectedAt('stolen-at-51', 51);
    expect((await asking(path, 45)).json()).to.equal('stolen-at-51');
  });
});
