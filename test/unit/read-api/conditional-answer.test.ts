/** The HTTP forms of a public operation's answer (cache/conditional-answer.ts): headers as the contract wants them, made once. */
import { expect } from 'chai';
import { conditionalAnswer } from '../../../read-api/cache/conditional-answer.ts';
import { renderAnswer } from '../../../read-api/cache/rendered-answer.ts';

describe('conditional answers', () => {
  const answer = renderAnswer(200, { reference: 'AUR-1' });
  const at = (position: number, ifNoneMatch?: string) => conditionalAnswer(answer, { position, cacheControl: 'public, max-age=60', conditional: true, ifNoneMatch });

  it('sends the position, Cache-Control, ETag and type with a 200, and 304 without a body to a matching If-None-Match', () => {
    expect(at(5)).to.deep.equal({
      status: 200, body: answer.body,
      headers: [['x-read-model-position', '5'], ['cache-control', 'public, max-age=60'], ['etag', answer.etag], ['content-type', 'application/json; charset=utf-8']],
    });
    expect(at(5, `W/${answer.etag}`)).to.deep.equal({
      status: 304, body: undefined, headers: [['x-read-model-position', '5'], ['cache-control', 'public, max-age=60'], ['etag', answer.etag]],
    });
  });

  it('answers a request other than GET or HEAD without ETag, and an error without Cache-Control', () => {
    const plain = conditionalAnswer(answer, { position: 5, cacheControl: 'no-store', conditional: false, ifNoneMatch: answer.etag });
    expect(plain.status).to.equal(200);
    expect(plain.headers.map(([name]) => name)).to.deep.equal(['x-read-model-position', 'cache-control', 'content-type']);
    const error = conditionalAnswer(renderAnswer(404, { detail: 'Not Found' }), { position: 5, cacheControl: 'no-store', conditional: true, ifNoneMatch: undefined });
    expect(error.status).to.equal(404);
    expect(error.headers.map(([name]) => name)).to.deep.equal(['x-read-model-position', 'content-type']);
  });

  it('builds the forms of an answer once per read-model position (issue 22)', () => {
    expect(at(6)).to.equal(at(6));
    expect(at(7)).not.to.equal(at(6));
    expect(at(7).headers[0]).to.deep.equal(['x-read-model-position', '7']);
  });
});
