/** Answers carrying the time of the request (verification's `checked_at`), renewed on replay without re-rendering. */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { isoText, renderAnswer, renewTime, timedTemplate, type TimedAnswer } from '../../../read-api/cache/rendered-answer.ts';

describe('timed answers', () => {
  const body = { serial: 'AUR-1', details: { model: 'Régate Édition Bleue' }, checked_at: '2026-01-02T03:04:05.678Z', lang: 'fr' };
  // Made inside each test, so that the mutation tester sees which tests run timedTemplate (code run while the
  // suite loads is attributed to no test).
  let template: TimedAnswer;
  beforeEach(() => { template = timedTemplate(renderAnswer(200, body), body, 'checked_at')!; });

  it('renews only the time, even after multi-byte characters', () => {
    const renewed = renewTime(template, new Date('2030-12-31T23:59:59.999Z'));
    expect(JSON.parse(renewed.body.toString())).to.deep.equal({ ...body, checked_at: '2030-12-31T23:59:59.999Z' });
    expect(renewed.status).to.equal(200);
  });

  it('gives different bytes different strong tags and the same bytes the same tag', () => {
    const a = renewTime(template, new Date(1_000));
    const b = renewTime(template, new Date(2_000));
    expect(a.etag).to.match(/^"[^"]+"$/);
    expect(a.etag).not.to.equal(b.etag);
    expect(renewTime(template, new Date(1_000)).etag).to.equal(a.etag);
  });

  it('gives requests within the same millisecond the very same answer, copied once (issue 22)', () => {
    const a = renewTime(template, new Date(7_000));
    expect(renewTime(template, new Date(7_000))).to.equal(a);
    expect(renewTime(template, new Date(7_001))).not.to.equal(a);
  });

  it('leaves the template untouched', () => {
    const before = Buffer.from(template.template);
    renewTime(template, new Date(5_000));
    expect(template.template.equals(before)).to.equal(true);
  });

  it('tags a renewed answer with the template\'s own tag and the time in base 36, as one strong tag', () => {
    const templateTag = createHash('sha1').update(JSON.stringify(body)).digest('base64url');
    const at = new Date('2030-12-31T23:59:59.999Z');
    expect(renewTime(template, at).etag).to.equal(`"${templateTag}.${at.getTime().toString(36)}"`);
  });

  it('has no template for an answer without that time field, with a time that is not a string, or for no object at all', () => {
    const other = { serial: 'AUR-1' };
    expect(timedTemplate(renderAnswer(200, other), other, 'checked_at')).to.equal(undefined);
    const numeric = { serial: 'AUR-1', checked_at: 1_767_323_045 };
    expect(timedTemplate(renderAnswer(200, numeric), numeric, 'checked_at')).to.equal(undefined);
    expect(timedTemplate(renderAnswer(200, null), null, 'checked_at')).to.equal(undefined);
  });

  it('has no template when the rendered answer does not hold the body\'s time', () => {
    expect(timedTemplate(renderAnswer(200, { serial: 'AUR-1' }), body, 'checked_at')).to.equal(undefined);
  });

  it('writes a time as toISOString does: every millisecond of a second, the next, earlier ones, the whole era', () => {
    const times: number[] = [];
    for (let millis = 0; millis < 1_000; millis += 1) times.push(1_767_323_045_000 + millis);
    times.push(1_767_323_046_000, 1_767_323_046_120, 1_767_323_044_500, 0, 999);
    // Up to the last millisecond of year 9999, the last of four-digit years, by a stride that lands on every field.
    for (let time = 0; time <= 253_402_300_799_999; time += 7_654_321_098_765) times.push(time);
    times.push(253_402_300_799_999);
    for (const time of times) expect(isoText(time), String(time)).to.equal(new Date(time).toISOString());
  });
});
