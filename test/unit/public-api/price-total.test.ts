/**
 * docs/api.md, money: "JSON numbers in euros with at most two decimals. All arithmetic is done in integer cents; a
 * total is always exactly the sum of its parts", and `total_eur = base_price_eur + options_total_eur +
 * accessories_total_eur`, exactly. Checked on the answer as JSON writes it, for random cent amounts; the expected
 * figures are summed here in integer cents from the generated prices and written out as decimal text by hand.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { CATEGORY_KEYS } from '../../../shared/events/common.ts';
import type { ConfiguratorDoc } from '../../../shared/read-model/documents/documents.ts';
import { quotePrice } from '../../../shared/read-model/public-api/operations/price-quote.ts';

/** Cents as a JSON number of euros is written: `1295033` is `12950.33`, `120` is `1.2`, `100` is `1`. */
function eurosText(cents: number): string {
  const fraction = String(cents % 100).padStart(2, '0').replace(/0+$/, '');
  return fraction === '' ? String(Math.floor(cents / 100)) : `${Math.floor(cents / 100)}.${fraction}`;
}

/** The cents an amount in an answer stands for, read from its JSON text; more than two decimals is a failure. */
function centsOf(amount: unknown, what: string): number {
  const text = JSON.stringify(amount);
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(text);
  if (!match) throw new Error(`${what} is ${text}: not euros with at most two decimals`);
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

const cents = fc.integer({ min: 0, max: 5_000_000 });
const category = fc.record({ prices: fc.array(cents, { minLength: 1, maxLength: 3 }), chosen: fc.option(fc.nat(2), { nil: undefined }) });
const configuration = fc.record({
  base: cents,
  categories: fc.array(category, { minLength: 1, maxLength: CATEGORY_KEYS.length }),
  accessories: fc.array(fc.record({ unit: cents, max: fc.integer({ min: 1, max: 5 }), quantity: fc.nat(5) }), { maxLength: 3 }),
});
type Configuration = typeof configuration extends fc.Arbitrary<infer T> ? T : never;

/** A configurator whose first categories offer the generated options (the first one the default), and its request. */
function priced({ base, categories, accessories }: Configuration) {
  const doc: ConfiguratorDoc = {
    _id: 'en:test', lang: 'en', collection: { code: 'test', name: 'Test' }, position: 1,
    categories: CATEGORY_KEYS.map((key, i) => ({
      key, label: key,
      options: (categories[i]?.prices ?? []).map((price_cents, o) => ({ code: `o${o}`, label: `o${o}`, price_cents, default: o === 0 })),
    })),
    accessories: accessories.map((a, i) => ({ code: `a${i}`, label: `a${i}`, unit_price_cents: a.unit, max_quantity: a.max })),
  };
  const options: Record<string, string> = {};
  let optionsCents = 0;
  categories.forEach(({ prices, chosen }, i) => {
    const pick = chosen !== undefined && chosen < prices.length ? chosen : 0;
    if (chosen !== undefined && chosen < prices.length) options[CATEGORY_KEYS[i]!] = `o${chosen}`;
    optionsCents += prices[pick]!;
  });
  const quantities: Record<string, number> = {};
  let accessoriesCents = 0;
  accessories.forEach((a, i) => {
    const quantity = Math.min(a.quantity, a.max);
    quantities[`a${i}`] = quantity;
    accessoriesCents += a.unit * quantity;
  });
  const model = { model_ref: 'T-1', name: 'Test', base_price_cents: base };
  return { doc, model, request: { collection: 'test', model_ref: 'T-1', options, accessories: quantities }, optionsCents, accessoriesCents };
}

describe('price totals in euros', () => {
  it('every amount has at most two decimals and every total is exactly the sum of its parts, for random cent amounts', () => {
    fc.assert(
      fc.property(configuration, (generated) => {
        const { doc, model, request, optionsCents, accessoriesCents } = priced(generated);
        const quote = quotePrice(doc, model, request, 'en');
        if (!quote.ok) throw new Error(JSON.stringify(quote.issues));
        const answer = JSON.parse(JSON.stringify(quote.result)) as typeof quote.result;
        const expectedTotal = generated.base + optionsCents + accessoriesCents;
        expect(JSON.stringify(answer.base_price_eur)).to.equal(eurosText(generated.base));
        expect(JSON.stringify(answer.options_total_eur)).to.equal(eurosText(optionsCents));
        expect(JSON.stringify(answer.accessories_total_eur)).to.equal(eurosText(accessoriesCents));
        expect(JSON.stringify(answer.total_eur)).to.equal(eurosText(expectedTotal));
        // Every line, read back from its own JSON text, adds up to its total.
        const optionLines = answer.options.reduce((sum, line) => sum + centsOf(line.price_eur, `${line.category} price_eur`), 0);
        expect(optionLines).to.equal(centsOf(answer.options_total_eur, 'options_total_eur'));
        for (const line of answer.accessories) {
          expect(centsOf(line.total_eur, `${line.code} total_eur`)).to.equal(centsOf(line.unit_price_eur, `${line.code} unit_price_eur`) * line.quantity);
        }
        const accessoryLines = answer.accessories.reduce((sum, line) => sum + centsOf(line.total_eur, `${line.code} total_eur`), 0);
        expect(accessoryLines).to.equal(centsOf(answer.accessories_total_eur, 'accessories_total_eur'));
        expect(centsOf(answer.total_eur, 'total_eur')).to.equal(
          centsOf(answer.base_price_eur, 'base_price_eur') + centsOf(answer.options_total_eur, 'options_total_eur') + centsOf(answer.accessories_total_eur, 'accessories_total_eur'),
        );
      }),
      {
        numRuns: 300,
        // The audit's case: 12500.10 + 450.20 + 0.03, which a sum of euro floats writes as 12950.330000000002.
        examples: [[{ base: 1250010, categories: [{ prices: [45020], chosen: undefined }], accessories: [{ unit: 3, max: 1, quantity: 1 }] }]],
      },
    );
  });
});
