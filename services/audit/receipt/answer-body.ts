/**
 * What a saved answer's body says of itself, read once its `Content-Digest` holds:
 * - the MCP tool call it answers. Every MCP call is a `POST /mcp`, so the request a receipt echoes (`Signed-Request`)
 *   does not say which tool was called with which arguments; a tool's result names its call in `_meta.call`
 *   (read-api/mcp/tool-call.ts), inside the body its digest covers (docs/api.md, "Signed answers");
 * - the serial index proof a verification asked with `proof=index` carries, as the offline file `watchcat receipt
 *   verify` checks with the log's key alone (index-proof.ts), so that a buyer who kept the signed answer with
 *   `curl -si` has the file too, without putting it together by hand.
 */
import { isPlainObject } from '../../../shared/read-model/public-api/validation/request-schema.ts';
import type { IndexStatus } from '../../../shared/read-model/transparency/serial-index.ts';
import { indexProofFile } from './index-proof.ts';

/** The body as JSON, or undefined when it is not JSON. */
function jsonOf(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The JSON-RPC result in `message`, when it is one. */
function resultOf(message: unknown): Record<string, unknown> | undefined {
  const result = isPlainObject(message) ? message['result'] : undefined;
  return isPlainObject(result) ? result : undefined;
}

/** `name {arguments}` of the JSON-RPC result in `body`, or undefined when the body names no call. */
export function answeredCall(body: Buffer): string | undefined {
  const meta = resultOf(jsonOf(body))?.['_meta'];
  const call = isPlainObject(meta) ? meta['call'] : undefined;
  if (!isPlainObject(call) || typeof call['name'] !== 'string' || !isPlainObject(call['arguments'])) return undefined;
  return `${call['name']} ${JSON.stringify(call['arguments'])}`;
}

/**
 * The index proof file of the verification in `body` (the body itself over HTTP, the result's structured content over
 * MCP), or undefined when it carries no proof. Its fields are taken as they are: the file's own reading refuses what
 * is malformed (index-proof.ts).
 */
export function indexProofOfAnswer(body: Buffer): string | undefined {
  const message = jsonOf(body);
  const structured = resultOf(message)?.['structuredContent'];
  const verification = isPlainObject(structured) ? structured : message;
  const proof = isPlainObject(verification) ? verification['proof'] : undefined;
  if (!isPlainObject(verification) || !isPlainObject(proof)) return undefined;
  const { serial, verification_status: status } = verification;
  const { checkpoint, vrf_proof, index_proof } = proof;
  if (![serial, status, checkpoint, vrf_proof, index_proof].every((field) => typeof field === 'string')) return undefined;
  return indexProofFile({ serial: serial as string, status: status as IndexStatus, vrf_proof: vrf_proof as string, index_proof: index_proof as string }, checkpoint as string);
}
