/**
 * The public keys that sign answers, as a JWK Set (RFC 7517) of Ed25519 keys (RFC 8037): the key history. Each
 * key's `kid` is its RFC 7638 thumbprint, the `keyid` a signature names. As in OpenID Federation's historical keys
 * (section 8.7 of OpenID Federation 1.0), `nbf` says when a key began (or will begin) signing and `exp` when it
 * stopped, both in Unix seconds; `revoked` with reason `compromised` marks a key whose private half leaked, which
 * voids every answer it signed whatever its `created` (shared/signing/key-validity.ts).
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { Ajv } from 'ajv';
import { calculateJwkThumbprint, exportJWK } from 'jose';
import Type from 'typebox';
import { OWN_SCHEMAS } from '../schema/own-schemas.ts';

export const Ed25519PublicJwk = Type.Object({
  kty: Type.Literal('OKP'),
  crv: Type.Literal('Ed25519'),
  x: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$', description: 'The public key, base64url (RFC 8037).' }),
  kid: Type.Optional(Type.String({ description: 'RFC 7638 thumbprint of the key: the `keyid` of the signatures it makes.' })),
  alg: Type.Optional(Type.Literal('EdDSA')),
  use: Type.Optional(Type.Literal('sig')),
  nbf: Type.Optional(Type.Integer({ description: 'When the key began, or will begin, signing (Unix seconds).' })),
  exp: Type.Optional(Type.Integer({ description: 'Retired: the key signed nothing after this time (Unix seconds).' })),
  revoked: Type.Optional(Type.Object({
    revoked_at: Type.Integer({ description: 'When the key was marked compromised (Unix seconds).' }),
    reason: Type.Literal('compromised'),
  }, { description: 'The private key leaked: every answer it signed is void, whatever its date.' })),
}, { title: 'Ed25519PublicJwk' });
export type Ed25519PublicJwk = Type.Static<typeof Ed25519PublicJwk>;

export const JwkSet = Type.Object({ keys: Type.Array(Ed25519PublicJwk) }, { title: 'JwkSet' });
export type JwkSet = Type.Static<typeof JwkSet>;

const validSet = new Ajv({ ...OWN_SCHEMAS, allErrors: true }).compile(JwkSet as object);

/** Reads a JWK Set of Ed25519 public keys; throws a message that quotes no key material. */
export function parseJwkSet(text: string): JwkSet {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('not JSON');
  }
  // A private member in a public list is a leak waiting to be served: refuse it rather than drop it.
  const keys = (value as { keys?: unknown }).keys;
  if (Array.isArray(keys) && keys.some((key) => typeof key === 'object' && key !== null && 'd' in key)) {
    throw new Error('it holds a private key (a "d" member); list public keys only');
  }
  if (!validSet(value)) {
    throw new Error(`not a JWK Set of Ed25519 public keys (${(validSet.errors ?? []).map((e) => `${e.instancePath || 'set'} ${e.message}`).join('; ')})`);
  }
  return value as JwkSet;
}

/** The RFC 7638 thumbprint of a key (its required members only, so `kid`, `exp` and the like do not count). */
export const thumbprint = (jwk: Ed25519PublicJwk): Promise<string> =>
  calculateJwkThumbprint({ kty: jwk.kty, crv: jwk.crv, x: jwk.x }, 'sha256');

/** The public JWK of a key, named by its thumbprint. */
export async function publicJwk(key: KeyObject): Promise<Ed25519PublicJwk> {
  const { x } = await exportJWK(key.type === 'private' ? createPublicKey(key) : key);
  const jwk: Ed25519PublicJwk = { kty: 'OKP', crv: 'Ed25519', x: x as string };
  return { ...jwk, kid: await thumbprint(jwk), alg: 'EdDSA', use: 'sig' };
}

export const publicKeyOf = (jwk: Ed25519PublicJwk): KeyObject =>
  createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' });
