/**
 * Decoding a request body as FastAPI does (`shared/read-model/public-api/validation/request-body.ts`), in process. FastAPI reads
 * a body as JSON when its media type is `application/json` or any `+json` type, parameters and the optional
 * whitespace before `;` (RFC 9110's OWS) aside; a malformed body is answered with the offset and message Python's
 * `json` module gives (each expected value below is Python 3's `json.loads` error for that text).
 */
import { expect } from 'chai';
import { decodeBody } from '../../../../shared/read-model/public-api/validation/request-body.ts';
import { RequestValidationError } from '../../../../shared/read-model/public-api/validation/validation-issue.ts';
import { thrownBy } from '../../../support/rejection.ts';

function issuesOf(text: string, contentType: string | undefined): unknown {
  return thrownBy(() => decodeBody(text, contentType), RequestValidationError).issues;
}

describe('request body decoding (content type and JSON syntax errors)', () => {
  it('parses a body whose media type has whitespace before its parameters (`application/json ; charset=utf-8`)', () => {
    expect(decodeBody('{"model_ref":"RG-100"}', 'application/json ; charset=utf-8')).to.deep.equal({ model_ref: 'RG-100' });
  });

  it('parses a body of a `+json` media type as JSON (`application/vnd.api+json`, `application/problem+json`)', () => {
    expect(decodeBody('{"a":1}', 'application/vnd.api+json')).to.deep.equal({ a: 1 });
    expect(decodeBody('{"a":1}', 'application/problem+json; charset=utf-8')).to.deep.equal({ a: 1 });
  });

  it('locates a syntax error after a string holding a space at the error, as Python does (`{"model ref": }`: char 14)', () => {
    // A space (0x20) is no control character: Python says "Expecting value" at the `}`, not at the space.
    expect(issuesOf('{"model ref": }', 'application/json')).to.deep.equal([
      { type: 'json_invalid', loc: ['body', 14], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting value' } },
    ]);
  });
});
