/**
 * Issue 42, item 8: the request log's fields made without a general number formatting or a draw of randomness per
 * line (read-api/middleware/request-log.ts). The duration must read as JSON reads the number rounded to hundredths;
 * the ids made must stay UUID-shaped and never repeat, within a process or across processes.
 */
import { expect } from 'chai';
import { hundredthsText, requestIds } from '../../../read-api/middleware/request-log.ts';
import { jsonString } from '../../../shared/text/json-string.ts';

describe('request log fields', () => {
  it('writes a duration as the JSON text of the number rounded to hundredths, trailing zeros left out', () => {
    const cases: Array<[number, string]> = [[0, '0'], [0.004, '0'], [0.005, '0.01'], [0.05, '0.05'], [0.1, '0.1'],
      [1.2, '1.2'], [7, '7'], [12.345678, '12.35'], [12.3, '12.3'], [99.999, '100'], [1234.5, '1234.5'], [3.07, '3.07']];
    for (const [ms, text] of cases) expect(hundredthsText(ms), String(ms)).to.equal(text);
    // Against JavaScript's own formatting of the rounded number, over a spread of durations.
    for (let i = 0; i < 20_000; i += 1) {
      const ms = (i * 7.919) % 3_000 + i / 997;
      expect(hundredthsText(ms), String(ms)).to.equal(JSON.stringify(Math.round(ms * 100) / 100));
    }
  });

  it('writes a path as JSON writes the string, escaping only what JSON escapes', () => {
    const texts = ['/api/public/catalogue', '', '/a"b', '/a\\b', '/a\nb', '/\u0000', '/\u001f', '/\u007f', '/é%20x?', '/\ud83d\ude00',
      '/\ud800', 'x\udc00y', '/\u2028'];
    for (const text of texts) expect(jsonString(text), JSON.stringify(text)).to.equal(JSON.stringify(text));
    for (let code = 0; code < 0x10000; code += 1) {
      const text = `/p${String.fromCharCode(code)}q`;
      expect(jsonString(text), `U+${code.toString(16)}`).to.equal(JSON.stringify(text));
    }
  });

  it('makes UUID-shaped ids that never repeat in a process, and differ between two processes\' makers', () => {
    const first = requestIds();
    const made = Array.from({ length: 5_000 }, () => first());
    for (const id of made.slice(0, 20)) expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(new Set(made).size).to.equal(made.length);
    const second = requestIds();
    const other = Array.from({ length: 5_000 }, () => second());
    const seen = new Set(made);
    expect(other.filter((id) => seen.has(id))).to.deep.equal([]);
  });
});
