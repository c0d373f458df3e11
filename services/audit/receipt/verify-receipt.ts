/**
 * Checks a saved signed answer (docs/api.md, "Signed answers") against a key history (JWK Set), offline: that the
 * signature covers at least what the contract lists (so that what the report prints was signed), that the key
 * could have signed it then (shared/signing/key-validity.ts), the body against its `Content-Digest` (RFC 9530),
 * then the RFC 9421 signature over the covered components, the request ones rebuilt from the answer's
 * `Signed-Request` echo. Every check runs, so a report names each thing that does not match. The position the
 * answer's data was read at (`X-Read-Model-Position`) and how old it was (`X-Data-Age`, seconds) are reported when
 * the signature covers them: what a checkpoint the receipt pins is checked against (receipt-checkpoint.ts); so is the
 * MCP tool call an answer names in its body (answer-body.ts), which its request components do not.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createVerifier, httpbis } from 'http-message-signatures';
import { type InnerList, isInnerList, parseDictionary, serializeDictionary, serializeItem } from 'structured-headers';
import { type Ed25519PublicJwk, type JwkSet, publicKeyOf, thumbprint } from '../../../shared/signing/jwk-set.ts';
import { keyValidityProblem } from '../../../shared/signing/key-validity.ts';
import { formatSignedRequest, parseSignedRequest, requestComponentParser, SIGNED_REQUEST_HEADER, type SignedRequest } from '../../../shared/signing/signed-request.ts';
import { answeredCall } from './answer-body.ts';
import type { SavedResponse } from './saved-response.ts';

export interface ReceiptReport {
  /** What does not match, one sentence each; empty when the receipt holds. */
  problems: string[];
  label?: string;
  keyid?: string;
  /** The key as the set lists it. */
  key?: Ed25519PublicJwk;
  created?: Date;
  /** How far `created` is ahead of this machine's clock, in seconds, when it is. */
  aheadSeconds?: number;
  covered?: string[];
  /** The request answered, as its signed components give it (one spelling per request the signature holds for). */
  request?: string;
  /** The MCP tool call the body names as the one it answers (`name {arguments}`), when its digest holds. */
  call?: string;
  /** The read-model position the answer's data was read at, when the signature covers it. */
  position?: number;
  /** How old the answer's data was, in seconds, when the signature covers it. */
  dataAge?: number;
  status: number;
  bodyBytes: number;
}


/**
 * What every receipt's signature must cover (docs/api.md): the answer's status, type and digest, and the request
 * it answers, deployment included. `content-type` only when the answer has one (a 304 or an empty answer has none).
 */
const REQUIRED_COVERAGE = ['"@status"', '"content-type"', '"content-digest"', '"@method";req', '"@path";req', '"@query";req', '"@authority";req'];

/** What an answer says of its data, reported when signed: the field, and where the report keeps it. */
const SIGNED_DATA = [['x-read-model-position', 'position'], ['x-data-age', 'dataAge']] as const;

export async function verifyReceipt(response: SavedResponse, jwks: JwkSet): Promise<ReceiptReport> {
  const report: ReceiptReport = { problems: [], status: response.status, bodyBytes: response.body.length };
  const problem = (text: string) => report.problems.push(text);
  const field = (name: string) => (Object.hasOwn(response.headers, name) ? response.headers[name]!.join(', ') : undefined);

  const signature = signatureOf(field('signature-input'), field('signature'));
  if (typeof signature === 'string') {
    problem(signature);
    return report;
  }
  const { label, input, bytes } = signature;
  const [items, params] = input;
  report.label = label;
  report.covered = items.map(serializeItem);
  for (const identifier of REQUIRED_COVERAGE) {
    if (identifier === '"content-type"' && field('content-type') === undefined) continue;
    if (!report.covered.includes(identifier)) problem(`the signature does not cover ${identifier}, which a receipt must`);
  }
  const keyid = params.get('keyid');
  const stated = params.get('created');
  const created = typeof stated === 'number' && isTime(stated) ? stated : undefined;
  const alg = params.get('alg');
  if (stated === undefined) problem('the signature has no created time');
  else if (created === undefined) problem(`the signature's created ${String(stated)} is no time: RFC 9421 asks for whole seconds since 1970`);
  else {
    report.created = new Date(created * 1000);
    // Shown, never judged: a signer's clock is not ours, and a fresh answer from a server whose clock runs ahead holds.
    const ahead = created - Math.floor(Date.now() / 1000);
    if (ahead > 0) report.aheadSeconds = ahead;
  }
  if (alg !== undefined && alg !== 'ed25519') problem(`the signature says alg="${String(alg)}", not "ed25519"`);

  const listed = typeof keyid === 'string' ? await keysOf(jwks, keyid) : [];
  const [key] = listed;
  if (typeof keyid !== 'string') problem('the signature names no keyid');
  else {
    report.keyid = keyid;
    if (!key) problem(`unknown key ${keyid}: it is not in the key set`);
    // Which of two entries holds (one retired or compromised, the other not) the set does not say: neither is taken.
    else if (listed.length > 1) problem(`the key set lists key ${keyid} ${listed.length} times`);
    else {
      report.key = key;
      const invalid = keyValidityProblem(key, keyid, created);
      if (invalid) problem(invalid);
    }
  }

  for (const [name, key] of SIGNED_DATA) {
    const value = field(name);
    if (value === undefined || !report.covered.includes(`"${name}"`)) continue;
    if (/^(0|[1-9]\d{0,15})$/.test(value)) report[key] = Number(value);
    else problem(`the signed ${name} is not a non-negative integer: ${value}`);
  }

  const digestProblem = checkDigest(field('content-digest'), response.body);
  if (digestProblem) problem(digestProblem);
  const call = digestProblem ? undefined : answeredCall(response.body);
  if (call !== undefined) report.call = call;

  const echoed = field(SIGNED_REQUEST_HEADER.toLowerCase());
  const request = echoed === undefined ? undefined : parseSignedRequest(echoed);
  // Written again from what the signature covers: the echo `/p?` reads as `/p`, whose `@query` (`?`) is the same.
  if (request) report.request = formatSignedRequest(request);
  const needsRequest = items.some(([, itemParams]) => itemParams.has('req'));
  if (needsRequest && !request) problem(`the signature covers request components but the answer has no usable ${SIGNED_REQUEST_HEADER} header`);

  if (key && (request || !needsRequest)) {
    const signatureProblem = await checkSignature(response, { label, input, bytes }, key, request);
    if (signatureProblem) problem(signatureProblem);
  }
  return report;
}

interface ChosenSignature {
  label: string;
  input: InnerList;
  bytes: ArrayBuffer;
}

/** The first signature of the answer, or why there is none to check. */
function signatureOf(inputField: string | undefined, signatureField: string | undefined): ChosenSignature | string {
  if (inputField === undefined || signatureField === undefined) {
    return 'the answer carries no signature (Signature-Input and Signature): ask for one with Accept-Signature';
  }
  let inputs;
  let signatures;
  try {
    inputs = parseDictionary(inputField);
    signatures = parseDictionary(signatureField);
  } catch {
    return 'Signature-Input or Signature is not a structured dictionary (RFC 8941)';
  }
  const [label, input] = [...inputs][0] ?? [];
  if (label === undefined || !input || !isInnerList(input)) return 'Signature-Input holds no signature';
  const value = signatures.get(label);
  if (!value || isInnerList(value) || !(value[0] instanceof ArrayBuffer)) return `Signature has no value for ${label}`;
  return { label, input, bytes: value[0] };
}

/** The entries of the key set whose RFC 7638 thumbprint is `keyid` (a listed `kid` is not trusted on its own). */
async function keysOf(jwks: JwkSet, keyid: string): Promise<Ed25519PublicJwk[]> {
  const listed: Ed25519PublicJwk[] = [];
  for (const jwk of jwks.keys) if ((await thumbprint(jwk)) === keyid) listed.push(jwk);
  return listed;
}

function checkDigest(header: string | undefined, body: Buffer): string | undefined {
  if (header === undefined) return 'the answer has no Content-Digest';
  let expected;
  try {
    expected = parseDictionary(header).get('sha-256');
  } catch {
    return 'Content-Digest is not a structured dictionary (RFC 8941)';
  }
  if (!expected || isInnerList(expected) || !(expected[0] instanceof ArrayBuffer)) return 'Content-Digest has no sha-256 digest';
  const claimed = Buffer.from(expected[0]);
  const actual = createHash('sha256').update(body).digest();
  if (claimed.length !== actual.length || !timingSafeEqual(claimed, actual)) {
    return `the body does not match its Content-Digest (sha-256 of the ${body.length} bytes saved differs)`;
  }
  return undefined;
}

async function checkSignature(response: SavedResponse, chosen: ChosenSignature, jwk: Ed25519PublicJwk, request: SignedRequest | undefined): Promise<string | undefined> {
  const headers = Object.create(null) as Record<string, string>;
  for (const [name, values] of Object.entries(response.headers)) headers[name] = values.join(', ');
  // Only the signature being checked, so the library cannot settle for another one.
  headers['signature-input'] = serializeDictionary(new Map([[chosen.label, chosen.input]]));
  headers['signature'] = serializeDictionary(new Map([[chosen.label, [chosen.bytes, new Map()]]]));
  const verify = createVerifier(publicKeyOf(jwk), 'ed25519');
  let valid: boolean | null;
  try {
    valid = await httpbis.verifyMessage(
      {
        keyLookup: async () => ({ algs: ['ed25519'], verify }),
        // The library refuses a created after its own clock: a comparison of two machines' clocks, which a receipt
        // does not rest on (the report says how far ahead it is).
        notAfter: Number.MAX_SAFE_INTEGER,
        ...(request ? { componentParser: requestComponentParser(request) } : {}),
      },
      { status: response.status, headers },
      // Only read through the component parser; the library wants a request to exist.
      { method: request?.method ?? 'GET', url: 'http://receipt.invalid/', headers: {} },
    );
  } catch (error) {
    const missing = /^No header "(.+)" found/.exec((error as Error).message);
    if (missing) return `the covered header ${missing[1]} is missing from the answer`;
    return `the signature cannot be checked: ${(error as Error).message}`;
  }
  if (valid) return undefined;
  const covered = chosen.input[0].map(serializeItem).join(' ');
  return `the signature does not match: the status or a covered field (${covered}) differs from what was signed`;
}

const isoSeconds = (seconds: number) => new Date(seconds * 1000).toISOString();

/**
 * Whether `seconds` is a `created` a date can hold: an integer (RFC 9421, 2.3) within the 8.64e12 seconds either side
 * of 1970 that a JavaScript date reaches (an RFC 8941 integer reaches 15 digits).
 */
const isTime = (seconds: number) => Number.isInteger(seconds) && !Number.isNaN(new Date(seconds * 1000).getTime());
