/**
 * The back-office command line teaches (issue 44, item 5): a price is typed as the JSON number it becomes, so
 * `12,5` and `12 500` are refused saying how to write them rather than read as a guess, and a manufacture year after
 * the current one is refused by the clock of the machine that registers it, saying so.
 */
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { watchcat } from '../audit/support/watchcat-run.ts';
import { tinyCatalogue } from './support/tiny-catalogue.ts';

describe('watchcat: refusals that teach (issue 44, item 5)', () => {
  let dir: string;
  let env: Record<string, string>;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'watchcat-teach-'));
    env = { DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'silent' };
    await writeFile(join(dir, 'catalogue.json'), JSON.stringify(tinyCatalogue()));
    expect((await watchcat(env, 'import', join(dir, 'catalogue.json'))).code).to.equal(0);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const howToWrite = (plain: string) =>
    `write ${plain}: a price in euros is a plain number, without spaces or separators, with a point before the decimals`;

  for (const [typed, plain] of [['12,5', '12.5'], ['12 500', '12500'], ['12 500,50', '12500.50'], ['12_500', '12500']] as const) {
    it(`refuses the price ${JSON.stringify(typed)} as a usage error, saying to write ${plain}`, async () => {
      for (const args of [['watch', 'set-price', 'AUR-LU-001', typed], ['watch', 'create', '--price', typed]]) {
        const refused = await watchcat(env, ...args);
        expect(refused.code, args.join(' ')).to.equal(2);
        expect(refused.notes.join('\n'), args.join(' ')).to.include(howToWrite(plain));
      }
    });
  }

  it('takes a price typed as a JSON number, with a point and up to two decimals', async () => {
    const priced = await watchcat(env, 'watch', 'set-price', 'AUR-LU-001', '12500.50');
    expect(priced.code, priced.notes.join('\n')).to.equal(0);
    expect(priced.out[0]).to.match(/^price of AUR-LU-001 set to 12500.5 EUR at position \d+$/);
  });

  it('refuses a manufacture year after the current one by this machine\'s clock, saying so, and takes the current year', async () => {
    // Two years after the UTC year is after the current year in every time zone; the UTC year itself has always begun
    // somewhere (the latest year begun is the UTC year or the next).
    const now = new Date().getUTCFullYear();
    const future = await watchcat(env, 'serial', 'register', 'AUR-2099-0001', '--reference', 'AUR-LU-001', '--year', String(now + 2));
    expect(future.code).to.equal(1);
    expect(future.notes.at(-1)).to.match(new RegExp(
      `^watchcat: manufacture year ${now + 2} is in the future: by the service's clock at registration the latest year begun anywhere is (${now}|${now + 1})$`,
    ));
    const current = await watchcat(env, 'serial', 'register', 'AUR-2099-0002', '--reference', 'AUR-LU-001', '--year', String(now));
    expect(current.code, current.notes.join('\n')).to.equal(0);
  });
});
