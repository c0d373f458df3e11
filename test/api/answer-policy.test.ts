/**
 * The answer policy (shared/read-model/public-api/answer-policy.ts) as every cache meets it: a kept answer that needs fresh read
 * models is given by neither answer cache nor the MCP one once they are stale, and again once they are confirmed; a
 * kept answer is never given under a stamp newer than the data it was read from; the time an answer says is the
 * policy's, kept answers' included. The clock runs on a fake monotonic time, so the bounds are crossed exactly;
 * expected answers follow docs/api.md, "Honest answers".
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { loadConfig } from '../../shared/config/config.ts';
import { GENERATIONS_ID, type ReadStore, type StoredDoc } from '../../shared/ports/read-store.ts';
import { newCheckpoint } from '../../shared/read-model/projections/control-docs.ts';
import { readSnapshotStates } from '../../shared/read-model/projections/projection-states.ts';
import { keptAnswerPolicy } from '../../shared/read-model/public-api/answer-policy.ts';
import { answerInSnapshot, type ReadingEnv } from '../../shared/read-model/public-api/answer-policy.ts';
import { ok, type PublicOperation } from '../../shared/read-model/public-api/operations/public-operation.ts';
import { verifyOperation } from '../../shared/read-model/public-api/operations/verify.operation.ts';
import { watchDetailOperation } from '../../shared/read-model/public-api/operations/watch-detail.operation.ts';
import { startReadModelClock, type PolledReadModelClock } from '../../shared/read-model/public-api/read-model-clock.ts';
import type { ValidRequest } from '../../shared/read-model/public-api/validation/request-validator.ts';
import { createAnswerCache } from '../../read-api/cache/answer-cache.ts';
import { createMcpAnswerCache, type TransportAnswer } from '../../read-api/mcp/mcp-answer-cache.ts';
import { mcpTools } from '../../read-api/mcp/mcp-tools.ts';
import { canonicalAnswerCache, publicRouter } from '../../read-api/routes.ts';
import { confirmAgain } from '../support/confirm-again.ts';
import { controlledReadStore } from '../support/controlled-read-store.ts';
import { send } from '../support/http.ts';
import { loadFixtureCatalogue } from './support/catalogue-fixture.ts';
import { instrumentReadStore } from './support/instrumented-read-store.ts';
import { startTestApp, TEST_BRAND } from './support/test-app.ts';

/** The verification's bound (docs/api.md: `VERIFY_MAX_LAG_SECONDS`, 5 by default). */
const FRESH_BOUND_MS = 5_000;

interface Harness {
  url: string;
  clock: PolledReadModelClock;
  /** The fake monotonic time, in ms. */
  mono: { ms: number };
  close(): Promise<void>;
}

/** The operations' routes behind the answer cache, as the public app mounts them, over `store`, on a fake monotonic clock. */
async function serve(store: ReadStore, operations: PublicOperation[], now?: () => Date): Promise<Harness> {
  const mono = { ms: 0 };
  const clock = await startReadModelClock(() => readSnapshotStates(store), {
    intervalMs: 60_000, freshAnswerMaxLagMs: FRESH_BOUND_MS, monotonic: () => mono.ms,
  });
  clock.stop();
  const env = { clock, config: loadConfig({}), health: () => 'ok' as const, brand: TEST_BRAND, operations: [], ...(now ? { now } : {}) };
  const answers = createAnswerCache({ clientKey: () => 'one client' });
  const router = publicRouter(operations, env, { cache: canonicalAnswerCache(), answers });
  const app = new Koa();
  app.use(answers.middleware);
  app.use(router.routes());
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    clock,
    mono,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** The watch detail, as if it needed its read model fresh as the verification does, and kept whole. */
const freshDetail: PublicOperation = { ...watchDetailOperation, fresh: true };

describe('one answer policy for every cache', () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('gives a kept answer that needs fresh read models from neither answer cache nor the MCP one once they are stale, and again once confirmed', async () => {
    const store = instrumentReadStore(createMemoryReadStore());
    await loadFixtureCatalogue(store);
    harness = await serve(store, [freshDetail]);
    const { clock, mono } = harness;
    // A confirmation this process sees happen, read by the poll at 1 s: it happened after the one at 0 began.
    await confirmAgain(store);
    mono.ms = 1_000;
    await clock.refresh();

    const byUrl = '/api/public/catalogue/RG-100';
    // The same request spelt otherwise: the canonical cache answers it, not the one by URL.
    const byRequest = '/api/public/catalogue/RG-100?lang=en';
    const first = await send(harness.url, byUrl);
    expect(first.status).to.equal(200);
    const mcp = createMcpAnswerCache(mcpTools([freshDetail]), clock);
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_watch', arguments: { reference: 'RG-100' } } });
    const answered: TransportAnswer = { status: 200, headers: [], json: true, body: Buffer.from('{"result":{"content":[]},"jsonrpc":"2.0","id":1}') };
    const keptAt = (await clock.reading()).stamp(freshDetail.reads);
    mcp.call(call(1), {})!.keep(answered, keptAt);
    const keptHeaders = [['X-Read-Model-Position', String(keptAt.position)], ['X-Data-Age', '1']];

    const queries = store.queries;
    expect((await send(harness.url, byUrl)).text, 'from the cache by URL').to.equal(first.text);
    expect((await send(harness.url, byRequest)).text, 'from the canonical cache').to.equal(first.text);
    expect(store.queries, 'neither read the store').to.equal(queries);
    expect(mcp.call(call(2), {})!.cached()?.headers, 'the MCP answer, with its data\'s position and age').to.deep.equal(keptHeaders);

    // Past the bound with no confirmation seen since: stale.
    mono.ms = 1_000 + FRESH_BOUND_MS + 1;
    for (const path of [byUrl, byRequest]) {
      const refused = await send(harness.url, path);
      expect(refused.status, path).to.equal(503);
      expect(refused.headers['retry-after'], path).to.equal('5');
    }
    expect(mcp.call(call(3), {})!.cached(), 'the MCP answer').to.equal(undefined);

    // Confirmed again: the projections still stand where the answers were read, so the kept ones are given again.
    await confirmAgain(store);
    mono.ms += 1_000;
    await clock.refresh();
    const again = store.queries;
    expect((await send(harness.url, byUrl)).text).to.equal(first.text);
    expect((await send(harness.url, byRequest)).text).to.equal(first.text);
    expect(store.queries, 'from the caches').to.equal(again);
    expect(mcp.call(call(4), {})!.cached()?.headers).to.deep.equal(keptHeaders);
  });

  it('never gives a kept answer under a stamp newer than its data: one read while the clock moved on is read again', async () => {
    const base = createMemoryReadStore();
    const controlled = controlledReadStore(base);
    const serial = (status: string, position: number) => ({ _id: 'AUR-0001', serial: 'AUR-0001', status, position });
    const checkpointAt = (generation: number, position: number) => ({
      ...newCheckpoint('serials', generation, 1, position), confirmed: { head: position, at: new Date(position).toISOString() },
    });
    await base.write('serials', [{ put: serial('authentic', 10) }]);
    await base.setControl(checkpointAt(1, 10), {}, true);
    // What the registry holds for a serial, kept whole (unlike the verification, whose time is renewed).
    const registry: PublicOperation = {
      ...verifyOperation, spec: { ...verifyOperation.spec, id: 'registryStatus' }, cacheable: true, timeField: undefined,
      async handle(request, { readStore }) {
        return ok((await readStore.get<{ status: string } & StoredDoc>('serials', request.path['serial'] as string))?.status);
      },
    };
    harness = await serve(controlled.store, [registry]);
    const { clock } = harness;
    await confirmAgain(base);
    harness.mono.ms = 1_000;
    await clock.refresh();
    // While the answer reads the serial through its snapshot, generation 2 (the theft at 12) goes live and the clock
    // polls it: the poll completes before the read does.
    controlled.intercept({
      method: 'snapshot.get', times: 1, run: async () => {
        await base.generation('serials', 2).write([{ put: serial('stolen', 12) }]);
        await base.setControl(checkpointAt(2, 12), {}, true);
        await base.setControl({ _id: GENERATIONS_ID, version: 1, live: { serials: 2 }, reserved: 2 }, {}, true);
        harness!.mono.ms = 2_000;
        await clock.refresh();
      },
    });
    const during = await send(harness.url, '/api/public/verify/AUR-0001');
    expect(during.json()).to.equal('authentic');
    expect(during.headers['x-read-model-position'], 'the position its data was read at').to.equal('10');
    // Its owner confirms again in generation 2, as a live projector does: the confirmation the switch made live was not
    // seen happen (read-model-clock.ts), this one is.
    await base.setControl({ ...checkpointAt(2, 12), confirmed: { head: 12, at: new Date(13).toISOString() } }, {}, true);
    harness.mono.ms = 3_000;
    await clock.refresh();
    for (const path of ['/api/public/verify/AUR-0001', '/api/public/verify/AUR-0001?lang=en']) {
      const after = await send(harness.url, path);
      expect(after.json(), path).to.equal('stolen');
      expect(after.headers['x-read-model-position'], path).to.equal('12');
    }
  });

  it('keeps no answer read while the store stood behind, nor one that failed', () => {
    const clock = { view: () => () => ({ key: '1.7', position: 7, behindAt: null }) } as Partial<PolledReadModelClock> as PolledReadModelClock;
    const policy = keptAnswerPolicy({ clock }, watchDetailOperation);
    expect(policy.keep({ key: '1.7', position: 7, behindAt: 5 }, true)).to.equal(undefined);
    expect(policy.keep({ key: '1.7', position: 7, behindAt: null }, false)).to.equal(undefined);
    expect(policy.keep(undefined, true), 'a refusal').to.equal(undefined);
    expect(policy.keep({ key: '1.7', position: 7, behindAt: null }, true)?.stamp.position).to.equal(7);
  });

  it('says the time the policy gives: a verification\'s checked_at, renewed from it when a kept one is given again', async () => {
    const times = [new Date('2031-05-06T07:08:09.010Z'), new Date('2031-05-06T07:08:10.020Z')];
    const at = { next: 0 };
    const app = await startTestApp({ now: () => times[at.next]! });
    try {
      const path = '/api/public/verify/AUR-0001';
      expect((await send(app.url, path)).json().checked_at).to.equal('2031-05-06T07:08:09.010Z');
      const queries = app.store.queries;
      at.next = 1;
      expect((await send(app.url, path)).json().checked_at, 'from the cache, renewed').to.equal('2031-05-06T07:08:10.020Z');
      expect(app.store.queries, 'the kept answer: no read').to.equal(queries);
      // Over MCP and in the operation alike: the reading's time.
      const request = { query: { lang: 'en' }, path: { serial: 'AUR-0001' }, header: {} } as unknown as ValidRequest;
      const answer = await answerInSnapshot({ clock: app.clock, now: () => times[0]! } as Partial<ReadingEnv> as ReadingEnv)(verifyOperation, request);
      expect((answer.answer.body as { checked_at: string }).checked_at).to.equal('2031-05-06T07:08:09.010Z');
    } finally {
      await app.close();
    }
  });
});
