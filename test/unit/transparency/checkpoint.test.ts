/**
 * The C2SP tlog-checkpoint body (https://c2sp.org/tlog-checkpoint): an origin line, the tree size in ASCII decimal,
 * the root hash in standard base64, each ended by a newline; extension lines may follow. An auditor or a monitor
 * reads what the log signed through parseCheckpoint, so a body that is not such a checkpoint must be refused, not
 * read as some other tree.
 */
import { expect } from 'chai';
import { checkpointBody, parseCheckpoint } from '../../../shared/read-model/transparency/checkpoint.ts';

const ORIGIN = 'example.com/watchcat/events';
// 32 bytes 0x00..0x1f, in base64 as written out by hand (standard alphabet, one '=' of padding).
const ROOT = Buffer.from(Array.from({ length: 32 }, (_, i) => i));
const ROOT_BASE64 = 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=';

describe('transparency log: the checkpoint body', function () {
  it('writes the origin, the size in decimal and the root in base64, each on a line ended by a newline', function () {
    expect(checkpointBody({ origin: ORIGIN, size: 1234, root: ROOT })).to.equal(`${ORIGIN}\n1234\n${ROOT_BASE64}\n`);
  });

  it('reads the three lines back, and the extension lines after them', function () {
    const read = parseCheckpoint(`${ORIGIN}\n1234\n${ROOT_BASE64}\nan extension line\nanother\n`);
    expect(read.origin).to.equal(ORIGIN);
    expect(read.size).to.equal(1234);
    expect(Buffer.from(read.root).equals(ROOT)).to.equal(true);
    expect(read.extensions).to.deep.equal(['an extension line', 'another']);
    const empty = parseCheckpoint(`${ORIGIN}\n0\n${ROOT_BASE64}\n`);
    expect(empty.size, 'the empty tree').to.equal(0);
    expect(empty, 'no extension line').to.not.have.property('extensions');
  });

  it('writes extension lines after the root, each ended by a newline, and refuses an empty or multi-line one', function () {
    expect(checkpointBody({ origin: ORIGIN, size: 7, root: ROOT, extensions: ['one', 'two'] })).to.equal(`${ORIGIN}\n7\n${ROOT_BASE64}\none\ntwo\n`);
    expect(() => checkpointBody({ origin: ORIGIN, size: 7, root: ROOT, extensions: [''] })).to.throw(RangeError);
    expect(() => checkpointBody({ origin: ORIGIN, size: 7, root: ROOT, extensions: ['a\nb'] })).to.throw(RangeError);
  });

  it('refuses a body with no origin, a size that is not canonical decimal digits, or a root that is not 32 bytes in canonical base64', function () {
    const bodies = {
      'an empty origin line': `\n1234\n${ROOT_BASE64}\n`,
      'a size with a trailing letter': `${ORIGIN}\n1234x\n${ROOT_BASE64}\n`,
      'a size with a leading letter': `${ORIGIN}\nx1234\n${ROOT_BASE64}\n`,
      // C2SP: the size is ASCII decimal with no leading zeroes; past 2^53 - 1 a JavaScript number would round it.
      'a size with a leading zero': `${ORIGIN}\n007\n${ROOT_BASE64}\n`,
      'a size past 2^53 - 1': `${ORIGIN}\n9007199254740993\n${ROOT_BASE64}\n`,
      'a root of 31 bytes': `${ORIGIN}\n1234\n${ROOT.subarray(0, 31).toString('base64')}\n`,
      'a root of 33 bytes': `${ORIGIN}\n1234\n${Buffer.concat([ROOT, Buffer.of(0)]).toString('base64')}\n`,
      // The same 32 bytes with the last character's two unused bits set: Node decodes it, the spec's base64 does not.
      'a root in non-canonical base64': `${ORIGIN}\n1234\n${ROOT_BASE64.slice(0, 42)}9=\n`,
      'a root in URL-safe base64 with no padding': `${ORIGIN}\n1234\n${ROOT.toString('base64url')}\n`,
    };
    for (const [what, body] of Object.entries(bodies)) {
      expect(() => parseCheckpoint(body), what).to.throw(/not a tlog checkpoint/);
    }
  });

  it('refuses a body with an empty extension line, which C2SP tlog-checkpoint does not allow, instead of reading past it', function () {
    const bodies = {
      'an empty line after the root': `${ORIGIN}\n1234\n${ROOT_BASE64}\n\n`,
      'an empty line before an extension line': `${ORIGIN}\n1234\n${ROOT_BASE64}\n\nan extension line\n`,
      'an empty line between two extension lines': `${ORIGIN}\n1234\n${ROOT_BASE64}\none\n\ntwo\n`,
    };
    for (const [what, body] of Object.entries(bodies)) {
      expect(() => parseCheckpoint(body), what).to.throw(/not a tlog checkpoint: an empty extension line/);
    }
  });
});
