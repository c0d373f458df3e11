/**
 * Issue 44, item 1 ("every public request, HTTP and MCP, may send `X-Min-Position`"): the transparency log's
 * checkpoint and proofs. A client that has just appended asks for a checkpoint counting its event: it waits for one
 * up to `MIN_POSITION_WAIT_MS`, is answered from the first that does, and is refused with the contract's 503 when none
 * comes in time; a malformed value is the contract's 422. Before, the log's routes read no header: an inclusion proof
 * asked by position right after the append was a 422 saying no event of the log is at that position.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import type { EventStore } from '../../../shared/ports/event-store.ts';
import type { ReadStore } from '../../../shared/ports/read-store.ts';
import type { TransparencyLog } from '../../../read-api/transparency/log-publisher.ts';
import { serialRegistered } from '../../fixtures/events.ts';
import { servedLogRoutes, logAheadOfItsCheckpoint } from '../../support/signed-log.ts';

const WAIT_MS = 800;
const serials = (count: number, from: number) => Array.from({ length: count }, (_, i) => serialRegistered(`MIN-${String(from + i).padStart(4, '0')}`));
const BEHIND = { detail: 'The answer is not yet up to date with your change; try again shortly' };
/** docs/api.md, "Read your writes": the same refusal "in French with `lang=fr`", which the proofs take. */
const BEHIND_FR = { detail: 'La réponse n\'est pas encore à jour de votre modification ; réessayez dans un instant' };

describe('the transparency log\'s checkpoint and proofs asked with X-Min-Position', function () {
  this.timeout(60_000);
  let events: EventStore;
  let readStore: ReadStore;
  let log: TransparencyLog;
  let server: Awaited<ReturnType<typeof servedLogRoutes>>;
  let base: string;
  /** Positions of the last event signed (leaf 19) and of the last projected, not yet signed (leaf 29). */
  let signedPosition: number;
  let aheadPosition: number;

  before(async () => {
    // Its publisher looks only at its start and when told: it signs the 20 leaves, then the 30 once the test lets it look.
    const ahead = await logAheadOfItsCheckpoint(serials(20, 0), serials(10, 20));
    ({ events, readStore, log, signedPosition } = ahead);
    aheadPosition = ahead.aheadPositions[0]!;
    expect(log.checkpoint()?.size, 'leaves signed').to.equal(20);
    server = await servedLogRoutes(log, WAIT_MS);
    ({ base } = server);
  });
  after(async () => {
    await server.close();
    await log.stop();
    await events.close();
  });

  const asking = (path: string, minPosition: string) => fetch(`${base}${path}`, { headers: { 'x-min-position': minPosition } });
  const paths = (position: number) => [
    '/transparency/checkpoint', `/api/public/transparency/inclusion?position=${position}`, '/api/public/transparency/consistency?from=1&to=20',
  ];

  it('lets a page on another site ask them with X-Min-Position (the CORS preflight allows it)', async () => {
    for (const path of paths(signedPosition)) {
      const preflight = await fetch(`${base}${path}`, {
        method: 'OPTIONS', headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-min-position' },
      });
      expect(preflight.status, path).to.equal(204);
      expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase().split(/,\s*/), path).to.include('x-min-position');
      expect(preflight.headers.get('access-control-allow-methods'), path).to.contain('GET');
    }
  });

  it('answers at once when the latest checkpoint counts the position asked', async () => {
    for (const path of paths(signedPosition)) {
      const answer = await asking(path, String(signedPosition));
      expect(answer.status, path).to.equal(200);
      await answer.arrayBuffer();
    }
  });

  it('refuses a value that is not a canonical non-negative integer with the contract\'s 422', async () => {
    for (const path of paths(signedPosition)) {
      for (const value of ['-1', '01', '1e3', 'soon']) {
        const refused = await asking(path, value);
        expect(refused.status, `${path} ${value}`).to.equal(422);
        const { detail } = await refused.json() as { detail: { loc: string[] }[] };
        expect(detail.map(({ loc }) => loc), `${path} ${value}`).to.deep.equal([['header', 'x-min-position']]);
      }
    }
  });

  it(`waits ${WAIT_MS} ms for a checkpoint counting the position, then refuses with the contract's 503`, async () => {
    for (const path of paths(signedPosition)) {
      const started = performance.now();
      const refused = await asking(path, String(aheadPosition));
      expect(refused.status, path).to.equal(503);
      expect(performance.now() - started, `${path}: waited`).to.be.at.least(WAIT_MS - 50);
      expect(refused.headers.get('retry-after'), path).to.equal('1');
      expect(await refused.json(), path).to.deep.equal(BEHIND);
    }
  });

  // The proofs take `lang` (their OpenAPI query), and every public request's refusal for its `X-Min-Position` is in
  // French with `lang=fr` (docs/api.md, "Read your writes"). Before, it was the English text whatever `lang` said.
  it('refuses a proof asked with lang=fr in French', async () => {
    for (const path of [`/api/public/transparency/inclusion?position=${signedPosition}&lang=fr`, '/api/public/transparency/consistency?from=1&to=20&lang=fr']) {
      const refused = await asking(path, String(aheadPosition));
      expect(refused.status, path).to.equal(503);
      expect(refused.headers.get('retry-after'), path).to.equal('1');
      expect(await refused.json(), path).to.deep.equal(BEHIND_FR);
    }
  });

  it('waits and refuses the same in a process that knows of no checkpoint itself yet (its first look failed), the store holding one', async () => {
    const unlooked = await servedLogRoutes({ ...log, checkpoint: () => undefined }, 300);
    try {
      const answer = (minPosition: number) => fetch(`${unlooked.base}/transparency/checkpoint`, { headers: { 'x-min-position': String(minPosition) } });
      const counted = await answer(signedPosition);
      expect(counted.status, 'the store\'s checkpoint counts the position').to.equal(200);
      expect((await counted.text()).split('\n')[1]).to.equal('20');
      const refused = await answer(aheadPosition);
      expect(refused.status).to.equal(503);
      expect(await refused.json()).to.deep.equal(BEHIND);
    } finally {
      await unlooked.close();
    }
  });

  /** How many snapshots of the store `count` requests waiting at once for a checkpoint never signed cost. */
  async function snapshotsWhileWaiting(count: number): Promise<number> {
    let snapshots = 0;
    const snapshot = readStore.snapshot.bind(readStore);
    readStore.snapshot = () => {
      snapshots += 1;
      return snapshot();
    };
    try {
      const answers = await Promise.all(Array.from({ length: count }, () => asking('/transparency/checkpoint', String(aheadPosition))));
      expect(answers.map((answer) => answer.status)).to.deep.equal(Array(count).fill(503));
      return snapshots;
    } finally {
      readStore.snapshot = snapshot;
    }
  }

  // docs/api.md, "Read your writes": requests waiting at once share one reading. On main at 6a31782 each waiting
  // request read the store itself every 100 ms: 40 of them, 440 snapshots in a second's wait, where one cost 11 (the
  // checkpoint, under the files limit of 1,200 a minute, let one address keep 40 waiting).
  it('shares the readings made while requests wait: twenty waiting cost the store no more than one, beside their first reading each', async () => {
    const one = await snapshotsWhileWaiting(1);
    const twenty = await snapshotsWhileWaiting(20);
    expect(one, 'a waiting request reads the store again meanwhile').to.be.above(2);
    expect(twenty - 20, `${twenty} snapshots for twenty, ${one} for one`).to.be.at.most(2 * one);
  });

  it('answers a waiting request from the first checkpoint that counts its position', async () => {
    const proof = asking(`/api/public/transparency/inclusion?position=${aheadPosition}`, String(aheadPosition));
    const checkpoint = asking('/transparency/checkpoint', String(aheadPosition));
    await sleep(200);
    // A look computes the VRF outputs of new serials for INDEX_BUDGET_MS at most (log-publisher.ts): on a loaded
    // machine it signs a checkpoint short of leaf 29 first (CI on Node 24 signed 26), which the waiting requests skip.
    for (let looks = 0; looks < 10 && (log.checkpoint()?.size ?? 0) < 30; looks += 1) await log.look();
    expect(log.checkpoint()?.size, 'signed meanwhile').to.equal(30);
    const [proved, signed] = await Promise.all([proof, checkpoint]);
    expect(proved.status).to.equal(200);
    expect(((await proved.json()) as { tree_size: number; leaf_index: number })).to.include({ tree_size: 30, leaf_index: 29 });
    expect(signed.status).to.equal(200);
    expect((await signed.text()).split('\n')[1]).to.equal('30');
  });
});
