/**
 * C2SP tlog-cosignature, the Ed25519 type (docs/audit.md, "Witnesses"): a witness's signature line is
 * `— <name> base64(key id || u64 big-endian timestamp || Ed25519 signature)`, its key id the first four bytes of
 * SHA-256(name || "\n" || 0x04 || public key), the signature over `cosignature/v1\ntime <t>\n<checkpoint body>`.
 * The expected bytes are computed here from the specification with node:crypto, not by the code under test.
 */
import { createHash, generateKeyPairSync, sign, verify } from 'node:crypto';
import { expect } from 'chai';
import { cosign, cosignatureTime, cosignerKey, parseCosignerKey } from '../../../shared/read-model/transparency/cosignature.ts';
import { parseNote, parseVerifierKey } from '../../../shared/read-model/transparency/signed-note.ts';

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
});
