/**
 * ECVRF-EDWARDS25519-SHA512-ELL2 (RFC 9381, suite 0x04): the serial index's keys (issue 45). A serial's key in the
 * published index is the VRF output of the serial under the service's VRF key, so the index shows no serial to
 * someone who did not ask about it (serials are guessable: a plain hash of one would be found by trying them all),
 * while the proof lets anyone who holds the serial check that its key is the one the index was built with, and that
 * the service could have made no other.
 *
 * Only RFC 9381's composition is written here (section 5, with section 5.5's parameters for this suite): the key
 * expansion (RFC 8032), the hash to curve (RFC 9380, edwards25519_XMD:SHA-512_ELL2_NU_) and the verifier's group
 * arithmetic are @noble/curves', the hashes node:crypto's. The prover's multiplications by secret scalars (Gamma = x*H,
 * k*B, k*H) and the cofactor's are libsodium's, native (sodium-native): in noble's constant-time BigInt code they cost
 * about 1.4 ms each, most of a proof of a serial the index does not hold, which is computed at its first ask
 * (bench/README.md, "index-proof.ts"). The verifier stays on noble, so each side checks the other.
 */
import { hash } from 'node:crypto';
import { ed25519, ed25519_hasher } from '@noble/curves/ed25519.js';
import { bytesToNumberLE, numberToBytesLE } from '@noble/curves/utils.js';
import { createRequire } from 'node:module';

/**
 * libsodium, loaded at the first proof or key: a native addon that only the read API's prover needs, so that the CLI,
 * the projector and the verifier, which import this module for `vrfVerify`, do not load it at every start.
 */
let loaded: typeof import('sodium-native') | undefined;
const sodium = (): typeof import('sodium-native') => (loaded ??= createRequire(import.meta.url)('sodium-native') as typeof import('sodium-native'));

const Point = ed25519.Point;
type EdPoint = InstanceType<typeof Point>;
const q = Point.Fn.ORDER;

const SUITE = 0x04;
/** Section 5.5: cLen for this suite. */
const C_LEN = 16;
const PT_LEN = 32;
const Q_LEN = 32;
export const VRF_PROOF_SIZE = PT_LEN + C_LEN + Q_LEN;
/** Section 5.4.1.2: "ECVRF_" || h2c_suite_ID_string || suite_string. */
const H2C_DST = Buffer.concat([Buffer.from('ECVRF_edwards25519_XMD:SHA-512_ELL2_NU_'), Buffer.of(SUITE)]);

const sha512 = (...parts: Uint8Array[]): Buffer => hash('sha512', Buffer.concat(parts), 'buffer');

/** Section 5.4.1.2: encode_to_curve_salt is the public key's encoding. */
const encodeToCurve = (publicKey: Uint8Array, alpha: Uint8Array): EdPoint =>
  ed25519_hasher.encodeToCurve(Buffer.concat([publicKey, alpha]), { DST: H2C_DST }) as EdPoint;

/** Section 5.4.3, over the points' encodings; c is the first cLen bytes of the digest, little-endian. */
function challenge(...points: Uint8Array[]): bigint {
  const digest = sha512(Buffer.of(SUITE, 0x02), ...points, Buffer.of(0x00));
  return bytesToNumberLE(digest.subarray(0, C_LEN));
}

/** Section 5.2: beta from the encoding of Gamma multiplied by the cofactor. */
const cofactorGammaToHash = (cofactorGamma: Uint8Array): Buffer => sha512(Buffer.of(SUITE, 0x03), cofactorGamma, Buffer.of(0x00));

/** A scalar as libsodium takes it: 32 bytes, little-endian. */
const scalarBytes = (scalar: bigint): Buffer => Buffer.from(numberToBytesLE(scalar, Q_LEN));

/**
 * `scalar * point` (encodings, the scalar below q): libsodium refuses a point off the prime-order subgroup or a product
 * at the identity, which for H (an encode_to_curve output, its cofactor cleared) and the nonzero scalars used here
 * happens with negligible probability; a refusal throws rather than give a wrong proof.
 */
function multiply(scalar: bigint, point: Buffer): Buffer {
  const product = Buffer.alloc(PT_LEN);
  sodium().crypto_scalarmult_ed25519_noclamp(product, scalarBytes(scalar), point);
  return product;
}

/** 8 * `point` as three doublings (libsodium's point addition): a third of the cost of a multiplication. */
function timesCofactor(point: Buffer): Buffer {
  let product = point;
  for (let doubling = 0; doubling < 3; doubling += 1) {
    const doubled = Buffer.alloc(PT_LEN);
    sodium().crypto_core_ed25519_add(doubled, product, product);
    product = doubled;
  }
  return product;
}

function multiplyBase(scalar: bigint): Buffer {
  const product = Buffer.alloc(PT_LEN);
  sodium().crypto_scalarmult_ed25519_base_noclamp(product, scalarBytes(scalar));
  return product;
}

export interface VrfKey {
  /** The public key Y's encoding (32 bytes), as an Ed25519 public key of the same secret. */
  readonly publicKey: Uint8Array;
  /** Section 5.1: pi for `alpha`, 80 bytes (Gamma || c || s). */
  prove(alpha: Uint8Array): Uint8Array;
  /** `prove(alpha)` and the beta it proves, from the one Gamma. */
  evaluate(alpha: Uint8Array): { proof: Uint8Array; output: Buffer };
  /** beta for `alpha` (64 bytes), what proof_to_hash gives of `prove(alpha)`, without the proof's two multiplications. */
  output(alpha: Uint8Array): Buffer;
}

/** The VRF key of a 32-byte secret (an Ed25519 seed: section 5.5 expands it as RFC 8032 does). */
export function vrfKey(secret: Uint8Array): VrfKey {
  const { scalar: x, prefix, pointBytes } = ed25519.utils.getExtendedPublicKey(secret);
  const publicKey = Uint8Array.from(pointBytes);
  // Without Gamma at hand, its cofactor multiple 8*Gamma is (8x mod q)*H: one multiplication, not two.
  const cofactorX = Point.Fn.create(8n * x);
  // H's encoding, once a serial: both multiplications, the nonce and the challenge take it.
  const hOf = (alpha: Uint8Array) => Buffer.from(encodeToCurve(publicKey, alpha).toBytes());
  function evaluate(alpha: Uint8Array) {
    const H = hOf(alpha);
    const gamma = multiply(x, H);
    // Section 5.4.2.2 (RFC 8032's nonce): the second half of SHA-512(SK), then H's encoding.
    const k = Point.Fn.create(bytesToNumberLE(sha512(prefix, H)));
    const c = challenge(publicKey, H, gamma, multiplyBase(k), multiply(k, H));
    const s = Point.Fn.create(k + c * x);
    return { proof: Buffer.concat([gamma, numberToBytesLE(c, C_LEN), numberToBytesLE(s, Q_LEN)]), output: cofactorGammaToHash(timesCofactor(gamma)) };
  }
  return {
    publicKey,
    evaluate,
    prove: (alpha) => evaluate(alpha).proof,
    output: (alpha) => cofactorGammaToHash(multiply(cofactorX, hOf(alpha))),
  };
}

/** Decodes a point, refusing a non-canonical encoding (section 5.5: string_to_point is RFC 8032's decoding). */
function pointOf(bytes: Uint8Array): EdPoint | undefined {
  try {
    return Point.fromBytes(bytes, false);
  } catch {
    return undefined;
  }
}

/**
 * Section 5.3 (with 5.4.5's key validation): beta (64 bytes) when `proof` is a valid proof for `alpha` under
 * `publicKey`, else undefined.
 */
export function vrfVerify(publicKey: Uint8Array, alpha: Uint8Array, proof: Uint8Array): Buffer | undefined {
  if (publicKey.length !== PT_LEN || proof.length !== VRF_PROOF_SIZE) return undefined;
  const Y = pointOf(publicKey);
  if (Y === undefined || Y.isSmallOrder()) return undefined;
  const gamma = pointOf(proof.subarray(0, PT_LEN));
  if (gamma === undefined) return undefined;
  const c = bytesToNumberLE(proof.subarray(PT_LEN, PT_LEN + C_LEN));
  const s = bytesToNumberLE(proof.subarray(PT_LEN + C_LEN));
  if (s >= q) return undefined;
  const H = encodeToCurve(publicKey, alpha);
  // U = s*B - c*Y and V = s*H - c*Gamma: public values, so the variable-time multiplication is safe.
  const U = Point.BASE.multiplyUnsafe(s).subtract(Y.multiplyUnsafe(c));
  const V = H.multiplyUnsafe(s).subtract(gamma.multiplyUnsafe(c));
  return challenge(...[Y, H, gamma, U, V].map((point) => point.toBytes())) === c ? cofactorGammaToHash(gamma.clearCofactor().toBytes()) : undefined;
}
