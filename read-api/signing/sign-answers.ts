/**
 * Signed answers (CONTRACT.md, "Signed answers"): to a request carrying `Accept-Signature` (RFC 9421, section
 * 5.1), the final answer gets `Content-Digest` (RFC 9530, sha-256 of the content actually sent) and a signature
 * (`Signature-Input`, `Signature`) made with the Ed25519 key. Placed just inside the metrics, outside the front
 * door, so it signs whatever the client receives: errors, answers replayed by the answer cache, 304s and 429s.
 *
 * Covered, under the first label the request names (`sig1` when it names none): `"@status"`, `"content-type"`,
 * `"content-digest"`, `"etag"` and `"retry-after"` when the answer has them, and the request's `"@method";req`,
 * `"@path";req`, `"@query";req`; then whatever else the request asks for that the answer has. A 304 and a HEAD
 * answer send no content: their digest is that of empty content, and the covered `etag` names the answer the
 * client already holds. A 429's signature covers its `retry-after`. Parameters: `created`, `keyid` (the key's
 * thumbprint), `alg="ed25519"`, and the request's own `nonce` and `tag` when it gives them. No `expires`: a
 * receipt is meant to be checked years later. `Signed-Request` echoes the request, so a saved answer carries
 * the request components it is signed over (shared/signing/signed-request.ts).
 *
 * A request without `Accept-Signature` costs one header lookup (bench/signing-overhead.ts), so its answer carries
 * no `Vary: Accept-Signature` either; signed answers do. An `Accept-Signature` that is not a structured Dictionary
 * of inner lists is ignored, as RFC 8941 says of any field that fails to parse.
 */
import { createHash } from 'node:crypto';
import { Stream } from 'node:stream';
import type { Middleware, ParameterizedContext } from 'koa';
import { createSigner, httpbis, type SigningKey } from 'http-message-signatures';
import { type InnerList, isInnerList, parseDictionary, serializeDictionary, serializeItem } from 'structured-headers';
import { formatSignedRequest, isRequestComponent, requestComponentParser, SIGNED_REQUEST_HEADER, type SignedRequest } from '../../shared/signing/signed-request.ts';
import type { ResponseSigningKeys } from './signing-keys.ts';

const DEFAULT_LABEL = 'sig1';

/** Covered whenever the answer has them, in this order. */
const ALWAYS_COVERED = ['@status', 'content-type', 'content-digest', 'etag', 'retry-after'];
const REQUEST_COVERED = ['@method', '@path', '@query'].map((name) => serializeItem([name, new Map([['req', true]])]));
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

export function signAnswers(keys: ResponseSigningKeys['current']): Middleware {
  const key = createSigner(keys.privateKey, 'ed25519', keys.keyid);
  // Not async: a request without Accept-Signature goes on to `next` with no promise of ours in between.
  return (ctx, next) => {
    const asked = ctx.req.headers['accept-signature'];
    if (asked === undefined) return next();
    return signedAnswer(ctx, next, key, Array.isArray(asked) ? asked.join(', ') : asked);
  };
}

async function signedAnswer(ctx: ParameterizedContext, next: () => Promise<unknown>, key: SigningKey, asked: string): Promise<void> {
  await next();
  const request = signatureRequest(asked);
  if (request === undefined) return;
  // A shared cache must not hand this answer to a client that asked for another signature, or for none.
  ctx.vary('Accept-Signature');
  await sign(ctx, key, request);
}

function signatureRequest(header: string): SignatureRequest | undefined {
  let dictionary;
  try {
    dictionary = parseDictionary(header);
  } catch {
    return undefined;
  }
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
    // Only what a saved answer can prove: its own fields and status, and the request components it echoes.
    if (typeof name !== 'string' || [...itemParams.keys()].some((param) => param !== 'req')) return [];
    if (req ? !isRequestComponent(name) : name.startsWith('@') && name !== '@status') return [];
    return [{ name, req }];
  });
  return { label, components, params };
}

async function sign(ctx: ParameterizedContext, key: SigningKey, { label, components, params }: SignatureRequest): Promise<void> {
  const content = contentSent(ctx);
  // A stream's bytes are not known before they are sent; no operation answers with one.
  if (content === undefined) return;
  const res = ctx.res;
  res.setHeader('Content-Digest', serializeDictionary(new Map([['sha-256', [digest(content), new Map()]]])));
  const target: SignedRequest = { method: ctx.method, path: ctx.path, query: ctx.querystring };
  res.setHeader(SIGNED_REQUEST_HEADER, formatSignedRequest(target));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.getHeaders())) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  const present = ({ name, req }: Component) => req || name === '@status' || name in headers;
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
