/**
 * ECVRF-EDWARDS25519-SHA512-ELL2 (shared/read-model/transparency/vrf.ts) against RFC 9381's own test vectors, Appendix B.4,
 * Examples 19, 20 and 21 (secret keys from RFC 8032 section 7.1). There is no web access here: the values were
 * taken from implementations' test data that quote the appendix (found with the session's code search: a Go ECVRF
 * package's TestRFC9381Vectors, and libsodium's VRF fork, test/default/vrf.c, which carries the same three proofs
 * and outputs from draft-irtf-cfrg-vrf-09 Appendix A.4, unchanged in the RFC for this suite). A proof equal byte for
 * byte pins the hash to curve, the nonce, the challenge and the scalar arithmetic; beta pins proof_to_hash.
 * Then what a verifier must refuse (section 5.3): a proof for another alpha, under another key, or altered.
 */
import { createHash } from 'node:crypto';
import { ed25519, ed25519_hasher } from '@noble/curves/ed25519.js';
import { expect } from 'chai';
import { VRF_PROOF_SIZE, vrfKey, vrfVerify } from '../../../shared/read-model/transparency/vrf.ts';

const RFC_9381_B4 = [
  {
    example: 19,
    sk: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    pk: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    alpha: '',
    pi: '7d9c633ffeee27349264cf5c667579fc583b4bda63ab71d001f89c10003ab46f14adf9a3cd8b8412d9038531e865c341cafa73589b023d14311c331a9ad15ff2fb37831e00f0acaa6d73bc9997b06501',
    beta: '9d574bf9b8302ec0fc1e21c3ec5368269527b87b462ce36dab2d14ccf80c53cccf6758f058c5b1c856b116388152bbe509ee3b9ecfe63d93c3b4346c1fbc6c54',
  },
  {
    example: 20,
    sk: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    pk: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    alpha: '72',
    pi: '47b327393ff2dd81336f8a2ef10339112401253b3c714eeda879f12c509072ef055b48372bb82efbdce8e10c8cb9a2f9d60e93908f93df1623ad78a86a028d6bc064dbfc75a6a57379ef855dc6733801',
    beta: '38561d6b77b71d30eb97a062168ae12b667ce5c28caccdf76bc88e093e4635987cd96814ce55b4689b3dd2947f80e59aac7b7675f8083865b46c89b2ce9cc735',
  },
  {
    example: 21,
    sk: 'c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7',
    pk: 'fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025',
    alpha: 'af82',
    pi: '926e895d308f5e328e7aa159c06eddbe56d06846abf5d98c2512235eaa57fdce35b46edfc655bc828d44ad09d1150f31374e7ef73027e14760d42e77341fe05467bb286cc2c9d7fde29120a0b2320d04',
    beta: '121b7f9b9aaaa29099fc04a94ba52784d44eac976dd1a3cca458733be5cd090a7b5fbd148444f17f8daf1fb55cb04b1ae85a626e30a54b4b0f8abf4a43314a58',
  },
];

const hex = (text: string) => Buffer.from(text, 'hex');
const toHex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('VRF (RFC 9381, ECVRF-EDWARDS25519-SHA512-ELL2)', function () {
  for (const vector of RFC_9381_B4) {
    it(`gives Appendix B.4 Example ${vector.example}'s public key, proof and output, and verifies the proof`, function () {
      const key = vrfKey(hex(vector.sk));
      expect(toHex(key.publicKey)).to.equal(vector.pk);
      const proof = key.prove(hex(vector.alpha));
      expect(toHex(proof)).to.equal(vector.pi);
      expect(toHex(key.output(hex(vector.alpha)))).to.equal(vector.beta);
      const { proof: evaluated, output } = key.evaluate(hex(vector.alpha));
      expect([toHex(evaluated), toHex(output)], 'evaluate: the proof and its output at once').to.deep.equal([vector.pi, vector.beta]);
      expect(toHex(vrfVerify(hex(vector.pk), hex(vector.alpha), hex(vector.pi)) ?? Buffer.alloc(0))).to.equal(vector.beta);
    });
  }

  it('refuses a proof for another alpha, under another key, or with any byte altered', function () {
    const [first, second] = RFC_9381_B4 as [typeof RFC_9381_B4[0], typeof RFC_9381_B4[0]];
    expect(vrfVerify(hex(first.pk), hex('00'), hex(first.pi))).to.equal(undefined);
    expect(vrfVerify(hex(second.pk), hex(first.alpha), hex(first.pi))).to.equal(undefined);
    for (let at = 0; at < VRF_PROOF_SIZE; at += 1) {
      const altered = hex(first.pi);
      altered[at]! ^= 0x01;
      expect(vrfVerify(hex(first.pk), hex(first.alpha), altered), `byte ${at} altered`).to.equal(undefined);
    }
    expect(vrfVerify(hex(first.pk), hex(first.alpha), hex(first.pi).subarray(1))).to.equal(undefined);
  });

  it('refuses a proof or a key of another length, even one whose bytes encode the same values (a zero byte added)', function () {
    const first = RFC_9381_B4[0]!;
    // s is read little-endian: a zero byte after it leaves its value, and so the proof's equations, unchanged.
    expect(vrfVerify(hex(first.pk), hex(first.alpha), Buffer.concat([hex(first.pi), Buffer.of(0)]))).to.equal(undefined);
    expect(vrfVerify(Buffer.concat([hex(first.pk), Buffer.of(0)]), hex(first.alpha), hex(first.pi))).to.equal(undefined);
  });

  it('refuses a proof whose s is not below the group order', function () {
    const first = RFC_9381_B4[0]!;
    // q = 2^252 + 27742317777372353535851937790883648493 (RFC 8032, 5.1): s + q is the same scalar, unreduced.
    const q = 2n ** 252n + 27742317777372353535851937790883648493n;
    const proof = hex(first.pi);
    const s = proof.subarray(48).reduce((value, byte, i) => value + (BigInt(byte) << BigInt(8 * i)), 0n);
    const unreduced = s + q;
    expect(unreduced < 2n ** 256n).to.equal(true);
    for (let i = 0; i < 32; i += 1) proof[48 + i] = Number((unreduced >> BigInt(8 * i)) & 0xffn);
    expect(vrfVerify(hex(first.pk), hex(first.alpha), proof)).to.equal(undefined);
  });

  it('refuses a public key of small order, under which anyone forges a proof for any output (section 5.4.5)', function () {
    // Under Y = the identity, U = s*B whatever c is: with Gamma the identity too, s = k and c = the challenge of
    // (Y, H, Gamma, k*B, k*H) satisfy the verifier's equations without any secret. Built here from section 5.3/5.4.
    const Y = ed25519.Point.ZERO;
    const alpha = Buffer.from('any serial');
    const H = ed25519_hasher.encodeToCurve(Buffer.concat([Y.toBytes(), alpha]), {
      DST: Buffer.concat([Buffer.from('ECVRF_edwards25519_XMD:SHA-512_ELL2_NU_'), Buffer.of(0x04)]),
    });
    const k = 1234567n;
    const digest = createHash('sha512').update(Buffer.of(0x04, 0x02))
      .update(Buffer.concat([Y, H, Y, ed25519.Point.BASE.multiply(k), H.multiply(k)].map((point) => point.toBytes())))
      .update(Buffer.of(0x00)).digest();
    const forged = Buffer.concat([Y.toBytes(), digest.subarray(0, 16), Buffer.alloc(32)]);
    for (let i = 0; i < 32; i += 1) forged[48 + i] = Number((k >> BigInt(8 * i)) & 0xffn);
    expect(vrfVerify(Y.toBytes(), alpha, forged)).to.equal(undefined);
  });
});
