/**
 * Signed answers (docs/api.md, "Signed answers"): to a request carrying `Accept-Signature` (RFC 9421, section
 * 5.1), the final answer gets `Content-Digest` (RFC 9530, sha-256 of the content actually sent) and a signature
 * (`Signature-Input`, `Signature`) made with the Ed25519 key. Run by the front door once the answer is final
 * (middleware/front-door.ts), so it signs whatever the client receives: errors, answers replayed by the answer
 * cache, 304s; and a failure here goes out as the front door's JSON 500. A 429 is never signed: signing is work,
 * and a refused client gets none (every request asking for a signature counts against the general limit). Nor is a
 * 422: its issues echo what the client sent (`"input": ...`), and a signature vouches only for what the service says
 * (issue 42: a signed 422 carried "This serial ... is STOLEN" under the manufacture's key).
 *
 * Covered, under the first label the request names (`sig1` when it names none): `"@status"`, `"content-type"`,
 * `"content-digest"`, and `"etag"`, `"retry-after"`, `"watchcat-checkpoint"`, `"x-read-model-position"` and
 * `"x-data-age"` when the answer has them (what its data is, how old, and the history it is read against), and the
 * request's `"@method";req`, `"@authority";req`, `"@path";req`, `"@query";req`; then whatever else the request asks
 * for that the answer has.
 * A 304 and a HEAD answer send no content: their digest is that of empty content, and the covered `etag` names the
 * answer the client already holds. Parameters: `created`, `keyid` (the key's thumbprint), `alg="ed25519"`, and
 * the request's own `nonce` and `tag` when it gives them. No `expires`: a receipt is meant to be checked years
 * later. `Signed-Request` echoes the request, so a saved answer carries the request components it is signed over
 * (shared/signing/signed-request.ts). Where the process serves the transparency log, a signed answer read at a
 * position (`X-Read-Model-Position`) also carries `Watchcat-Checkpoint: <tree size> <root base64>`, covered like the
 * rest: a tree of the log holding no event after that position (read-api/transparency/answer-checkpoint.ts), so
 * that a receipt pins one history, and no event of it that its answer had not seen (docs/api.md, "Transparency log").
 * An answer read at no position (a discovery file, an error) pins none.
 *
 * A request without `Accept-Signature` costs one header lookup (bench/signing-overhead.ts), so its answer carries
 * no `Vary: Accept-Signature` either; signed answers do. An `Accept-Signature` that is not a structured Dictionary
 * of inner lists is ignored, as RFC 8941 says of any field that fails to parse; so is one over 1 KiB, with more
 * than 4 labels or more than 16 components (the contract's bounds on the work one request may ask for). The signed
 * `@authority` is the service's own (`PUBLIC_BASE_URL`'s, else the address the connection reached), never the one
 * the request's `Host` or absolute-form target names: a client cannot make the key vouch for another site (issue 42).
 */
import { createHash } from 'node:crypto';
import { Stream } from 'node:stream';
import type { ParameterizedContext } from 'koa';
import { createSigner, httpbis, type SigningKey } from 'http-message-signatures';
import { type InnerList, isInnerList, parseDictionary, serializeDictionary, serializeItem } from 'structured-headers';
import {
  formatSignedRequest, isRequestComponent, requestComponentParser, SIGNED_REQUEST_HEADER, type SignedRequest,
} from '../../shared/signing/signed-request.ts';
import { serviceAuthority, type BaseUrlConfig } from '../../shared/public-base-url.ts';
import type { ResponseSigningKeys } from './signing-keys.ts';
import type { AnswerCheckpoint } from '../transparency/answer-checkpoint.ts';

const DEFAULT_LABEL = 'sig1';
/** A refusal of the limits (signing is work a refused client does not get), and a 422, which echoes the client's input. */
const UNSIGNED = new Set([422, 429]);
const ECHOES_INPUT = 'answerEchoesInput';

/** Marks an answer that echoes the client's input under another status (an MCP tool error, say): it is not signed. */
export function leaveUnsigned(ctx: ParameterizedContext): void {
  ctx.state[ECHOES_INPUT] = true;
}

const CHECKPOINT_HEADER = 'Watchcat-Checkpoint';
/** Where the answer's data was read (read-api/cache/conditional-answer.ts): the tree it pins holds nothing after it. */
const POSITION_HEADER = 'X-Read-Model-Position';
/** Covered whenever the answer has them, in this order. */
const ALWAYS_COVERED = [
  '@status', 'content-type', 'content-digest', 'etag', 'retry-after', CHECKPOINT_HEADER.toLowerCase(), 'x-read-model-position', 'x-data-age',
];
const REQUEST_COVERED = ['@method', '@authority', '@path', '@query'].map((name) => serializeItem([name, new Map([['req', true]])]));
/** The contract's bounds on what one `Accept-Signature` may ask for; beyond them it is ignored. */
const ACCEPT_SIGNATURE_BOUNDS = { bytes: 1024, labels: 4, components: 16 } as const;
/** The fields this module sets on a signed answer, removed again when signing fails half-way. */
const SIGNATURE_FIELDS = ['Content-Digest', SIGNED_REQUEST_HEADER, CHECKPOINT_HEADER, 'Signature-Input', 'Signature'];
/** Parameters a requester may set for its own purposes (freshness, application tag). */
const ECHOED_PARAMETERS = ['nonce', 'tag'];
const EMPTY = Buffer.alloc(0);

interface Component {
  name: string;
  /** Taken from the request (`;req`). */
  req: boolean;
}

interface SignatureRequest {
  label: string;
  components: Component[];
  params: Record<string, string>;
}

/**
 * Signs the final answer in `ctx` when its request asks for it: undefined at once (no promise, no work) when it
 * does not, or when the answer is one never signed (`UNSIGNED`).
 */
export type AnswerSigner = (ctx: ParameterizedContext) => Promise<void> | undefined;

/** `base`: where the service is reached (`PUBLIC_BASE_URL`), whose authority answers are signed under; none: the listening address. */
export function answerSigner(keys: ResponseSigningKeys['current'], checkpoint?: AnswerCheckpoint, base: BaseUrlConfig = {}): AnswerSigner {
  const key = createSigner(keys.privateKey, 'ed25519', keys.keyid);
  return (ctx) => {
    const asked = ctx.req.headers['accept-signature'];
    if (asked === undefined || UNSIGNED.has(ctx.status) || ctx.state[ECHOES_INPUT] === true) return undefined;
    const request = signatureRequest(Array.isArray(asked) ? asked.join(', ') : asked);
    const authority = serviceAuthority(base, ctx.req.socket);
    if (request === undefined || authority === undefined) return undefined;
    // A shared cache must not hand this answer to a client that asked for another signature, or for none.
    ctx.vary('Accept-Signature');
    return sign(ctx, key, request, { method: ctx.method, authority, path: ctx.path, query: ctx.querystring }, checkpoint);
  };
}

/** Takes back a signature begun on `ctx` (its fields), when signing failed half-way. */
export function withdrawSignature(ctx: ParameterizedContext): void {
  for (const name of SIGNATURE_FIELDS) ctx.res.removeHeader(name);
}

function signatureRequest(header: string): SignatureRequest | undefined {
  if (header.length > ACCEPT_SIGNATURE_BOUNDS.bytes) return undefined;
  let dictionary;
  try {
    dictionary = parseDictionary(header);
  } catch {
    return undefined;
  }
  if (dictionary.size > ACCEPT_SIGNATURE_BOUNDS.labels) return undefined;
  let asked = 0;
  for (const [, value] of dictionary) asked += isInnerList(value) ? value[0].length : 1;
  if (asked > ACCEPT_SIGNATURE_BOUNDS.components) return undefined;
  const [label, value] = [...dictionary][0] ?? [DEFAULT_LABEL, [[], new Map()] as InnerList];
  if (!isInnerList(value)) return undefined;
  const [items, parameters] = value;
  const params: Record<string, string> = {};
  for (const name of ECHOED_PARAMETERS) {
    const given = parameters.get(name);
    if (typeof given === 'string') params[name] = given;
  }
  const components = items.flatMap(([name, itemParams]): Component[] => {
    const req = itemParams.has('req');
    // Only what a saved answer can prove: its own fields and status, and the request components it echoes. A derived
    // component of the answer other than `@status` needs no check here: no field is named `@...`, so `present` drops it.
    if (typeof name !== 'string' || [...itemParams.keys()].some((param) => param !== 'req')) return [];
    if (req && !isRequestComponent(name)) return [];
    return [{ name, req }];
  });
  return { label, components, params };
}

async function sign(
  ctx: ParameterizedContext, key: SigningKey, { label, components, params }: SignatureRequest, target: SignedRequest,
  checkpoint: AnswerCheckpoint | undefined,
): Promise<void> {
  const content = contentSent(ctx);
  // A stream's bytes are not known before they are sent; no operation answers with one.
  if (content === undefined) return;
  const res = ctx.res;
  const position = res.getHeader(POSITION_HEADER);
  const pinned = checkpoint && position !== undefined ? await checkpoint(Number(position)) : undefined;
  res.setHeader('Content-Digest', serializeDictionary(new Map([['sha-256', [digest(content), new Map()]]])));
  res.setHeader(SIGNED_REQUEST_HEADER, formatSignedRequest(target));
  if (pinned) res.setHeader(CHECKPOINT_HEADER, `${pinned.size} ${Buffer.from(pinned.root).toString('base64')}`);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.getHeaders())) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  // Own members only: a component named `constructor` or `toString` is not a field the answer has.
  const present = ({ name, req }: Component) => req || name === '@status' || Object.hasOwn(headers, name);
  const own = ALWAYS_COVERED.map((name) => ({ name, req: false })).filter(present).map(identifier);
  const fields = [...new Set([...own, ...REQUEST_COVERED, ...components.filter(present).map(identifier)])];
  const signed = await httpbis.signMessage(
    {
      key, name: label, fields,
      params: ['created', 'keyid', 'alg', ...Object.keys(params)],
      paramValues: params,
      componentParser: requestComponentParser(target),
    },
    { status: ctx.status, headers },
    // The request components come from `target` (componentParser); the library still wants a request.
    { method: ctx.method, url: 'http://signed.invalid/', headers: {} },
  );
  res.setHeader('Signature-Input', signed.headers['Signature-Input'] as string);
  res.setHeader('Signature', signed.headers['Signature'] as string);
}

/** The content the client receives, as bytes; the body is set to those very bytes so that nothing re-serializes it. */
function contentSent(ctx: ParameterizedContext): Buffer | undefined {
  const body: unknown = ctx.body;
  if (ctx.method === 'HEAD' || ctx.status === 304 || ctx.status === 204 || body == null) return EMPTY;
  if (Buffer.isBuffer(body)) return body;
  if (body instanceof Stream) return undefined;
  const bytes = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  ctx.body = bytes;
  return bytes;
}

const identifier = ({ name, req }: Component) => serializeItem([name, req ? new Map([['req', true]]) : new Map()]);

function digest(content: Buffer): ArrayBuffer {
  const hash = createHash('sha256').update(content).digest();
  return hash.buffer.slice(hash.byteOffset, hash.byteOffset + hash.byteLength) as ArrayBuffer;
}
