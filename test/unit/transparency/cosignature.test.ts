/**
 * C2SP tlog-cosignature, the Ed25519 type (docs/audit.md, "Witnesses"): a witness's signature line is
 * `— <name> base64(key id || u64 big-endian timestamp || Ed25519 signature)`, its key id the first four bytes of
 * SHA-256(name || "\n" || 0x04 || public key), the signature over `cosignature/v1\ntime <t>\n<checkpoint body>`.
 * The expected bytes are computed here from the specification with node:crypto, not by the code under test.
 */
import { createHash, generateKeyPairSync, sign, verify } from 'node:crypto';
import { expect } from 'chai';
import {
  cosign, cosignatureTime, cosignerKey, exchangedCosignatures, parseCosignerKey, withCheckedCosignatures, withCosignatures,
} from '../../../shared/read-model/transparency/cosignature.ts';
import { parseNote, parseVerifierKey, signatureLine, signNote } from '../../../shared/read-model/transparency/signed-note.ts';

const NAME = 'witness.example/w1';
const BODY = 'watch.example/watchcat/events\n12\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n';
const TIME = 1_679_315_147;

const rawOf = (key: ReturnType<typeof generateKeyPairSync>['publicKey']) => Buffer.from(String(key.export({ format: 'jwk' }).x), 'base64url');
const specKeyId = (name: string, raw: Buffer, type: number) =>
  createHash('sha256').update(`${name}\n`).update(Buffer.of(type)).update(raw).digest().subarray(0, 4);

describe('transparency log: cosignatures (C2SP tlog-cosignature, cosignature/v1)', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = rawOf(publicKey);

  it('signs a line whose key id, timestamp and signature are the specification\'s', () => {
    const line = cosign(BODY, NAME, privateKey, TIME);
    const match = /^\u2014 (\S+) ([A-Za-z0-9+/=]+)\n$/.exec(line);
    expect(match?.[1]).to.equal(NAME);
    const bytes = Buffer.from(match![2]!, 'base64');
    expect(bytes.length).to.equal(4 + 8 + 64);
    expect(bytes.subarray(0, 4).equals(specKeyId(NAME, raw, 0x04))).to.equal(true);
    expect(bytes.readBigUInt64BE(4)).to.equal(BigInt(TIME));
    const message = Buffer.from(`cosignature/v1\ntime ${TIME}\n${BODY}`);
    expect(verify(null, message, publicKey, bytes.subarray(12))).to.equal(true);
  });

  it('names the witness by a verifier key of type 0x04, which is not read as a log key (0x01)', () => {
    const key = cosignerKey(NAME, privateKey);
    expect(key).to.equal(`${NAME}+${specKeyId(NAME, raw, 0x04).toString('hex')}+${Buffer.concat([Buffer.of(0x04), raw]).toString('base64')}`);
    expect(parseCosignerKey(key).name).to.equal(NAME);
    expect(() => parseVerifierKey(key)).to.throw(/not a verifier key/);
  });

  it('reads the time back from a line that verifies, and nothing from one that does not', () => {
    const verifier = parseCosignerKey(cosignerKey(NAME, privateKey));
    const [signature] = parseNote(`${BODY}\n${cosign(BODY, NAME, privateKey, TIME)}`).signatures;
    expect(cosignatureTime(BODY, signature!, verifier)).to.equal(TIME);
    // Another checkpoint, another witness's key under the same name, a time changed after signing.
    expect(cosignatureTime(BODY.replace('12', '13'), signature!, verifier)).to.equal(undefined);
    const other = parseCosignerKey(cosignerKey(NAME, generateKeyPairSync('ed25519').privateKey));
    expect(cosignatureTime(BODY, signature!, other)).to.equal(undefined);
    const moved = Buffer.from(signature!.signature);
    moved.writeBigUInt64BE(BigInt(TIME + 1), 0);
    expect(cosignatureTime(BODY, { ...signature!, signature: moved }, verifier)).to.equal(undefined);
  });

  it('refuses a zero timestamp, which the witness protocol forbids, even with a valid signature over it', () => {
    const verifier = parseCosignerKey(cosignerKey(NAME, privateKey));
    const zero = Buffer.concat([Buffer.alloc(8), sign(null, Buffer.from(`cosignature/v1\ntime 0\n${BODY}`), privateKey)]);
    expect(cosignatureTime(BODY, { name: NAME, id: verifier.id, signature: zero }, verifier)).to.equal(undefined);
    expect(() => cosign(BODY, NAME, privateKey, 0)).to.throw(RangeError);
  });

  describe('on a checkpoint\'s note', () => {
    const note = signNote(BODY, 'watch.example/watchcat/events', generateKeyPairSync('ed25519').privateKey);
    const second = generateKeyPairSync('ed25519').privateKey;
    const [w1, w2] = [cosign(BODY, NAME, privateKey, TIME), cosign(BODY, 'witness.example/w2', second, TIME)];

    it('adds a witness\'s line after the signatures, in place of its earlier one, and leaves a line it holds where it is', () => {
      const both = withCosignatures(note, [w1, w2]);
      expect(both).to.equal(`${note}${w1}${w2}`);
      expect(withCosignatures(both, [w1]), 'a line held').to.equal(both);
      expect(withCosignatures(both, []), 'no line').to.equal(both);
      const later = cosign(BODY, NAME, privateKey, TIME + 60);
      expect(withCosignatures(both, [later])).to.equal(`${note}${w2}${later}`);
    });

    it('replaces only the line of the same witness and key: one witness\'s two keys are two lines, as are two names under one key id', () => {
      // The witness's next key, under its name (a rotation, both keys listed while clients move).
      const rotated = cosign(BODY, NAME, generateKeyPairSync('ed25519').privateKey, TIME + 60);
      expect(withCosignatures(`${note}${w1}${w2}`, [rotated])).to.equal(`${note}${w1}${w2}${rotated}`);
      expect(withCosignatures(`${note}${rotated}${w2}`, [w1])).to.equal(`${note}${rotated}${w2}${w1}`);
      // A key id is four bytes: another witness's key ground to w1's id (some 2^32 tries) signs under another name.
      const w1Id = parseNote(`${note}${w1}`).signatures.find((line) => line.name === NAME)!.id;
      const [ground] = parseNote(`${note}${cosign(BODY, 'witness.example/w3', generateKeyPairSync('ed25519').privateKey, TIME)}`).signatures
        .filter((line) => line.name === 'witness.example/w3');
      const w3 = signatureLine({ ...ground!, id: w1Id });
      expect(withCosignatures(`${note}${w1}`, [w3])).to.equal(`${note}${w1}${w3}`);
      expect(withCosignatures(`${note}${w3}`, [w1])).to.equal(`${note}${w3}${w1}`);
    });

    it('keeps of a note signed by two log keys (a rotation) both signature lines whole', () => {
      const rotating = signNote(BODY, 'watch.example/watchcat/events', generateKeyPairSync('ed25519').privateKey, generateKeyPairSync('ed25519').privateKey);
      expect(parseNote(rotating).signatures).to.have.length(2);
      const verifiers = [parseCosignerKey(cosignerKey('witness.example/w2', second))];
      expect(withCheckedCosignatures(`${rotating}${w2}`, 'watch.example/watchcat/events', verifiers)).to.equal(`${rotating}${w2}`);
    });

    it('keeps of a note the log\'s signature lines and, of the others, only the cosignatures that verify by the witnesses given', () => {
      const verifiers = [parseCosignerKey(cosignerKey(NAME, privateKey)), parseCosignerKey(cosignerKey('witness.example/w2', second))];
      const ofAnother = cosign(BODY.replace('12', '13'), NAME, privateKey, TIME);
      const unknown = cosign(BODY, 'witness.example/w3', generateKeyPairSync('ed25519').privateKey, TIME);
      expect(withCheckedCosignatures(`${note}${ofAnother}${w2}${unknown}`, 'watch.example/watchcat/events', verifiers)).to.equal(`${note}${w2}`);
      expect(withCheckedCosignatures(`${note}${w1}${w2}`, 'watch.example/watchcat/events', []), 'no witness given').to.equal(note);
    });

    it('judges by its signature the line of a witness named as the log itself: its key is no log key', () => {
      const origin = 'watch.example/watchcat/events';
      const self = generateKeyPairSync('ed25519').privateKey;
      const verifiers = [parseCosignerKey(cosignerKey(origin, self))];
      const valid = cosign(BODY, origin, self, TIME);
      const ofAnother = cosign(BODY.replace('12', '13'), origin, self, TIME);
      expect(withCheckedCosignatures(`${note}${ofAnother}`, origin, verifiers), 'its line over another checkpoint').to.equal(note);
      expect(withCheckedCosignatures(`${note}${valid}`, origin, verifiers), 'its line over this one').to.equal(`${note}${valid}`);
    });

    it('exchanges between two notes of one checkpoint the lines that verify over it as cosignatures of the witnesses given, and only those', () => {
      const verifiers = [parseCosignerKey(cosignerKey(NAME, privateKey)), parseCosignerKey(cosignerKey('witness.example/w2', second))];
      // w1's name and key id over another checkpoint; a witness not given.
      const ofAnother = cosign(BODY.replace('12', '13'), NAME, privateKey, TIME);
      const unknown = cosign(BODY, 'witness.example/w3', generateKeyPairSync('ed25519').privateKey, TIME);
      expect(exchangedCosignatures(`${note}${w1}`, `${note}${w2}${ofAnother}${unknown}`, verifiers)).to.deep.equal({
        kept: `${note}${w1}${w2}`,
        stored: `${note}${w2}${unknown}${w1}`,
      });
      expect(exchangedCosignatures(`${note}${w1}`, `${note}${w2}`, verifiers.slice(1)), 'only the witnesses given')
        .to.deep.equal({ kept: `${note}${w1}${w2}`, stored: `${note}${w2}` });
      const later = cosign(BODY, NAME, privateKey, TIME + 60);
      expect(exchangedCosignatures(`${note}${w1}`, `${note}${later}`, verifiers), 'the store\'s later line kept, nothing given back')
        .to.deep.equal({ kept: `${note}${later}`, stored: `${note}${later}` });
      const other = signNote(BODY.replace('12', '13'), 'watch.example/watchcat/events', generateKeyPairSync('ed25519').privateKey);
      expect(exchangedCosignatures(`${note}${w1}`, `${other}${ofAnother}`, verifiers), 'another checkpoint')
        .to.deep.equal({ kept: `${note}${w1}`, stored: `${other}${ofAnother}` });
    });
  });
});
