/**
 * docs/api.md, catalogue sorting: "ties always broken by reference ascending (for every sort, `price_desc`
 * included), so consecutive pages never repeat or skip a watch". The watches are written in descending reference
 * order and one is rewritten afterwards, so a store that breaks ties by the order of its writes (as the in-memory
 * one does without the reference key) answers a different order than the one written by hand below.
 */
import { expect } from 'chai';
import { send } from '../support/http.ts';
import { startTestApp, type TestApp } from './support/test-app.ts';
import { putAll, watchDoc, type WatchSeed } from './support/catalogue-fixture.ts';

/** Abysse holds no fixture watch, so `collection=abysse` sees these five only. */
const seed = (reference: string, name: string, price_cents: number): WatchSeed => ({ reference, collection: 'abysse', name: { en: name, fr: name }, price_cents });
const TIED = [
  seed('AB-500', 'Abysse Diver', 500000),
  seed('AB-400', 'ABYSSE DIVER', 500000),
  seed('AB-300', 'Abysse Plongée', 300000),
  seed('AB-200', 'Abysse Plongee', 500000),
  seed('AB-100', 'Abyssé Diver', 300000),
];

describe('GET /api/public/catalogue: ties broken by reference whatever the order of the writes', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
    await putAll(app.store, 'watches', TIED.map((w) => watchDoc(w, 'en')));
    // The lowest reference written again, later: the last write of all.
    await putAll(app.store, 'watches', [{ ...watchDoc(TIED[4]!, 'en'), position: 20 }]);
  });
  after(async () => { await app.close(); });

  const refs = async (query: string) =>
    (await send(app.url, `/api/public/catalogue?collection=abysse&${query}`)).json().watches.map((w: { reference: string }) => w.reference);

  // Folded names: AB-100, AB-400 and AB-500 are all "abysse diver"; AB-200 and AB-300 are "abysse plongee".
  const EXPECTED: Record<string, string[]> = {
    name: ['AB-100', 'AB-400', 'AB-500', 'AB-200', 'AB-300'],
    price_asc: ['AB-100', 'AB-300', 'AB-200', 'AB-400', 'AB-500'],
    price_desc: ['AB-200', 'AB-400', 'AB-500', 'AB-100', 'AB-300'],
    collection: ['AB-100', 'AB-400', 'AB-500', 'AB-200', 'AB-300'],
  };

  for (const [sort, expected] of Object.entries(EXPECTED)) {
    it(`sort=${sort} orders tied watches by reference ascending, on one page and across pages of two`, async () => {
      expect(await refs(`sort=${sort}`)).to.deep.equal(expected);
      const paged: string[] = [];
      for (let offset = 0; offset < expected.length; offset += 2) paged.push(...await refs(`sort=${sort}&limit=2&offset=${offset}`));
      expect(paged).to.deep.equal(expected);
    });
  }
});
