/**
 * An independent RFC 9421 implementation for interop tests: the signature base written out by hand from the
 * RFC's rules (section 2.5: one `"identifier": value` line per covered component, then `"@signature-params"`),
 * signed and verified with node:crypto. It shares no code with the service or with http-message-signatures, and
 * reads Signature-Input with plain string handling rather than a structured-field parser.
 */
import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

/** What a covered component is worth in the message at hand, by its serialized identifier (`"@path";req`). */
export type ComponentValues = Record<string, string>;

/** `sig1=("@status" "etag");created=1;keyid="k"` → label, identifiers and the inner list as it is serialized. */
export function readSignatureInput(field: string): { label: string; identifiers: string[]; params: string } {
  const equals = field.indexOf('=');
  const params = field.slice(equals + 1);
  const list = params.slice(1, params.indexOf(')'));
  return { label: field.slice(0, equals), identifiers: list === '' ? [] : list.split(' '), params };
}

export function signatureBase(identifiers: string[], values: ComponentValues, params: string): string {
  const lines = identifiers.map((identifier) => {
    const value = values[identifier];
    if (value === undefined) throw new Error(`no value for ${identifier}`);
    return `${identifier}: ${value}`;
  });
  return [...lines, `"@signature-params": ${params}`].join('\n');
}

/** The `Signature` field's bytes for `label` (`label=:base64:`). */
export const signatureBytes = (field: string, label: string): Buffer =>
  Buffer.from(new RegExp(`(?:^|, *)${label}=:([A-Za-z0-9+/=]+):`).exec(field)?.[1] ?? '', 'base64');

export const verifyBase = (base: string, signature: Buffer, key: KeyObject): boolean => verify(null, Buffer.from(base), key, signature);
export const signBase = (base: string, key: KeyObject): Buffer => sign(null, Buffer.from(base), key);

/** RFC 9530: `sha-256=:<base64 of the SHA-256 of the content>:`. */
export const contentDigest = (content: Buffer | string): string => `sha-256=:${createHash('sha256').update(content).digest('base64')}:`;

/** RFC 7638 thumbprint of an Ed25519 JWK: SHA-256 of its required members in lexicographic order, base64url. */
export const thumbprintByHand = (x: string): string =>
  createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest('base64url');

export const publicKeyFromX = (x: string): KeyObject => createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
