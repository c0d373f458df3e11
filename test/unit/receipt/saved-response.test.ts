/**
 * A saved answer read as `curl -si` writes it (`services/audit/receipt/saved-response.ts`): status line, header lines, a
 * blank line, the body bytes. Expected values are the bytes written in each test, read by hand against RFC 9112
 * (a field name is case-insensitive, whitespace around a value is not part of it, an obs-fold reads as one space).
 */
import { expect } from 'chai';
import { parseSavedResponse, SavedResponseError } from '../../../services/audit/receipt/saved-response.ts';

const saved = (text: string): Buffer => Buffer.from(text, 'latin1');

function refused(text: string): string {
  try {
    parseSavedResponse(saved(text));
  } catch (error) {
    expect(error).to.be.instanceOf(SavedResponseError);
    return (error as Error).message;
  }
  throw new Error('read without an error');
}

describe('a saved HTTP response (curl -si)', () => {
  it('gives the status, the headers by lower-case name with values trimmed, and the body bytes after the blank line', () => {
    const response = parseSavedResponse(saved('HTTP/1.1 404 Not Found\r\nContent-Type:  application/json \r\nX-Two:b\r\n\r\n{"detail":"x"}\r\n\r\nmore'));
    expect(response.status).to.equal(404);
    expect({ ...response.headers }).to.deep.equal({ 'content-type': ['application/json'], 'x-two': ['b'] });
    expect(response.body.toString('latin1')).to.equal('{"detail":"x"}\r\n\r\nmore');
  });

  it('takes a status line without a reason phrase (HTTP/2) and refuses one that is not a three-digit status', () => {
    expect(parseSavedResponse(saved('HTTP/2 200\r\n\r\n')).status).to.equal(200);
    const notStatus = 'it does not start with an HTTP status line (save the answer with curl -si)';
    expect(refused('HTTP/1.1 2000 OK\r\n\r\n')).to.equal(notStatus);
    expect(refused('HTTP/1.1 20 OK\r\n\r\n')).to.equal(notStatus);
    expect(refused('HTTP/1.1 200OK\r\n\r\n')).to.equal(notStatus);
    expect(refused('{"status":"AUTHENTIC"}\r\n\r\n')).to.equal(notStatus);
    expect(refused(' HTTP/1.1 200 OK\r\n\r\n')).to.equal(notStatus);
  });

  it('skips interim 1xx answers up to the final one, 199 included, and keeps a 200\'s own headers', () => {
    const response = parseSavedResponse(saved('HTTP/1.1 100 Continue\r\nA: interim\r\n\r\nHTTP/1.1 199 Misc\r\n\r\nHTTP/1.1 200 OK\r\nB: final\r\n\r\nbody'));
    expect(response.status).to.equal(200);
    expect({ ...response.headers }).to.deep.equal({ b: ['final'] });
    expect(response.body.toString()).to.equal('body');
    expect(parseSavedResponse(saved('HTTP/1.1 200 OK\r\n\r\nHTTP/1.1 201 Created\r\n\r\n')).status).to.equal(200);
  });

  it('takes a status under 100 as the final answer, not an interim one: a signed 200 behind it is not what was saved', () => {
    const response = parseSavedResponse(saved('HTTP/1.1 099 Odd\r\nA: first\r\n\r\nHTTP/1.1 200 OK\r\nB: behind\r\n\r\nbody'));
    expect(response.status).to.equal(99);
    expect({ ...response.headers }).to.deep.equal({ a: ['first'] });
  });

  it('keeps each value of a field sent on several lines, in order, under one name whatever its case', () => {
    const response = parseSavedResponse(saved('HTTP/1.1 200 OK\r\nSignature: a\r\nsignature: b\r\nSIGNATURE : c\r\n\r\n'));
    expect(response.headers['signature']).to.deep.equal(['a', 'b', 'c']);
  });

  it('reads no name through to Object\'s members', () => {
    const { headers } = parseSavedResponse(saved('HTTP/1.1 200 OK\r\nA: 1\r\n\r\n'));
    expect(headers['constructor']).to.equal(undefined);
    expect('toString' in headers).to.equal(false);
    const own = parseSavedResponse(saved('HTTP/1.1 200 OK\r\nConstructor: x\r\n\r\n')).headers;
    expect(own['constructor']).to.deep.equal(['x']);
  });

  it('unfolds a continuation line (space or tab) onto the field before it, as one space, the first field included', () => {
    const response = parseSavedResponse(saved('HTTP/1.1 200 OK\r\nA: one  \r\n   two\r\n\tthree\r\nB: four\r\n\r\n'));
    expect({ ...response.headers }).to.deep.equal({ a: ['one two three'], b: ['four'] });
    // A first header line that starts with a space has nothing to continue: it is a field of its own.
    expect({ ...parseSavedResponse(saved('HTTP/1.1 200 OK\r\n  A: 1\r\n\r\n')).headers }).to.deep.equal({ a: ['1'] });
  });

  it('refuses a header line without a name, a leading colon included', () => {
    expect(refused('HTTP/1.1 200 OK\r\nno colon here  \r\n\r\n')).to.equal('header line without a name: "no colon here  "');
    expect(refused('HTTP/1.1 200 OK\r\n: value\r\n\r\n')).to.equal('header line without a name: ": value"');
    expect(refused(`HTTP/1.1 200 OK\r\n${'x'.repeat(70)}\r\n\r\n`)).to.equal(`header line without a name: "${'x'.repeat(60)}"`);
  });

  it('takes bare LF line ends, and whichever blank line comes first ends the head', () => {
    const lf = parseSavedResponse(saved('HTTP/1.1 200 OK\nA: 1\n\nbody\r\n\r\ntail'));
    expect({ ...lf.headers }).to.deep.equal({ a: ['1'] });
    expect(lf.body.toString()).to.equal('body\r\n\r\ntail');
    const crlf = parseSavedResponse(saved('HTTP/1.1 200 OK\r\nA: 1\r\n\r\nbody\n\ntail'));
    expect({ ...crlf.headers }).to.deep.equal({ a: ['1'] });
    expect(crlf.body.toString()).to.equal('body\n\ntail');
    expect(parseSavedResponse(saved('HTTP/1.1 204 No Content\r\n\r\n')).body.length).to.equal(0);
  });

  it('takes only an empty line for the end of the head: a line holding a lone CR, or one character, is a line of it', () => {
    // LF, CR, LF after a line ended by LF alone: the line between holds a CR, which no blank line is.
    expect(refused('HTTP/1.1 200 OK\nA: 1\n\r\nB: 2\r\n\r\nbody')).to.equal('header line without a name: ""');
    // CR, LF, one character, LF: a line of one character.
    expect(refused('HTTP/1.1 200 OK\r\nA: 1\r\nB\nC: 2\r\n\r\nbody')).to.equal('header line without a name: "B"');
    // CR, LF, CR, then no LF: the CR starts the next field's line (whitespace around a name is not part of it).
    const crStarted = parseSavedResponse(saved('HTTP/1.1 200 OK\r\nA: 1\r\n\rX: 2\r\n\r\nbody'));
    expect([{ ...crStarted.headers }, crStarted.body.toString()]).to.deep.equal([{ a: ['1'], x: ['2'] }, 'body']);
  });

  it('refuses an answer where no blank line ends the headers', () => {
    expect(refused('HTTP/1.1 200 OK\r\nA: 1\r\n')).to.equal('no blank line ends the headers');
    expect(refused('HTTP/1.1 200 OK\nA: 1\n')).to.equal('no blank line ends the headers');
  });

  it('reads a blank line at the very start as an empty head, so no status line', () => {
    const notStatus = 'it does not start with an HTTP status line (save the answer with curl -si)';
    expect(refused('\r\n\r\nHTTP/1.1 200 OK\r\n\r\n')).to.equal(notStatus);
    expect(refused('\n\nHTTP/1.1 200 OK\n\n')).to.equal(notStatus);
  });

  it('reads header bytes as latin1 and leaves the body\'s bytes as they were', () => {
    const bytes = Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\nX-Name: caf'), Buffer.of(0xe9), Buffer.from('\r\n\r\n'), Buffer.of(0xc3, 0xa9)]);
    const response = parseSavedResponse(bytes);
    expect(response.headers['x-name']).to.deep.equal(['caf\u00e9']);
    expect([...response.body]).to.deep.equal([0xc3, 0xa9]);
  });

  // A file handed to `receipt verify` may be hostile. At these sizes (about 2.5 MB each) a reader that searched the
  // rest of the file again for each interim answer, or copied a folded field whole for each of its lines, worked for
  // a minute or more, past this suite's timeout; in one pass it is a fraction of a second.
  it('reads 100,000 interim answers, CRLF and bare LF, and a field folded over 100,000 lines, each in one pass', () => {
    for (const end of ['\r\n', '\n']) {
      const interim = parseSavedResponse(saved(`${`HTTP/1.1 100 Continue${end}${end}`.repeat(100_000)}HTTP/1.1 200 OK${end}A: 1${end}${end}body`));
      expect([interim.status, { ...interim.headers }, interim.body.toString()], JSON.stringify(end)).to.deep.equal([200, { a: ['1'] }, 'body']);
    }
    const folded = parseSavedResponse(saved(`HTTP/1.1 200 OK\r\nA: x\r\n${' y \r\n'.repeat(100_000)}B: z\r\n\r\n`));
    expect(folded.headers['a']).to.deep.equal([`x${' y'.repeat(100_000)}`]);
    expect(folded.headers['b']).to.deep.equal(['z']);
  });
});
