/**
 * A log's side of C2SP tlog-witness: asks one witness to cosign a signed checkpoint. It sends `add-checkpoint` with
 * the size it believes the witness holds and the consistency proof from it; a 409 names the size the witness does
 * hold, and the request is sent once more from that size. Of the lines a witness answers, only a `cosignature/v1`
 * line by the witness's configured key that verifies over the checkpoint is taken (the spec: ignore unknown keys).
 * Bounded: each request has a deadline, and at most 64 KiB of an answer is read.
 */
import type { Hash } from './merkle.ts';
import { cosignatureTime, parseCosignerKey } from './cosignature.ts';
import { NoteError, noteText, parseNote, signatureLine, type Verifier } from './signed-note.ts';

/** A witness a log submits to: its submission URL prefix and its verifier key (type 0x04). */
export interface WitnessEndpoint {
  url: string;
  verifier: Verifier;
}

/**
 * Reads `<submission URL> <verifier key>`, as the TRANSPARENCY_WITNESSES setting lists a witness; throws a NoteError
 * naming what is wrong.
 */
export function parseWitnessEndpoint(entry: string): WitnessEndpoint {
  const [url = '', key = '', ...rest] = entry.trim().split(/\s+/);
  if (!/^https?:\/\/\S+$/.test(url) || rest.length > 0) throw new NoteError(`not a witness: expected "<http(s) URL> <verifier key>", got ${JSON.stringify(entry.trim())}`);
  return { url: url.replace(/\/$/, ''), verifier: parseCosignerKey(key) };
}

/** The witnesses of the TRANSPARENCY_WITNESSES setting: entries separated by commas; none when it is empty. */
export const parseWitnessList = (list: string): WitnessEndpoint[] =>
  list.split(',').filter((entry) => entry.trim() !== '').map(parseWitnessEndpoint);

/** The consistency proof from `from` to `to` leaves of the log. */
type ProofSource = (from: number, to: number) => Promise<Hash[]>;

export type CosignOutcome =
  /** `line`: the cosignature, newline included; `time`: the timestamp it states. */
  | { cosigned: true; line: string; time: number }
  /** `held`: the size the witness said it holds, when it said (a 409). */
  | { cosigned: false; reason: string; status?: number; held?: number };

interface CosignRequest {
  note: string;
  size: number;
  /** The size the witness is believed to hold (0 when unknown: its 409 tells). */
  oldSize: number;
  proofOf: ProofSource;
  timeoutMs: number;
}

const ANSWER_LIMIT = 64 * 1024;

async function boundedText(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > ANSWER_LIMIT) {
      await reader.cancel();
      throw new Error(`an answer larger than ${ANSWER_LIMIT} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const b64 = (hash: Hash) => Buffer.from(hash).toString('base64');

async function post(witness: WitnessEndpoint, body: string, timeoutMs: number): Promise<{ status: number; text: string }> {
  const response = await fetch(`${witness.url}/add-checkpoint`, { method: 'POST', body, signal: AbortSignal.timeout(timeoutMs) });
  return { status: response.status, text: await boundedText(response) };
}

/** The witness's cosignature line of `text` in `answer`, with its time, or undefined when none verifies. */
function cosignatureIn(answer: string, text: string, verifier: Verifier): { line: string; time: number } | undefined {
  let signatures;
  try {
    ({ signatures } = parseNote(`${text}\n${answer}`));
  } catch {
    return undefined;
  }
  for (const signature of signatures) {
    const time = cosignatureTime(text, signature, verifier);
    if (time !== undefined) return { line: signatureLine(signature), time };
  }
  return undefined;
}

/** Asks `witness` to cosign `request.note`; never throws. */
export async function requestCosignature(witness: WitnessEndpoint, request: CosignRequest): Promise<CosignOutcome> {
  let text: string;
  try {
    // The text the witness cosigns: cut where it, and Go's note.Open, cut a note.
    text = noteText(request.note);
  } catch (error) {
    return { cosigned: false, reason: (error as Error).message };
  }
  const attempt = async (oldSize: number): Promise<CosignOutcome> => {
    const proof = oldSize === 0 || oldSize === request.size ? [] : await request.proofOf(oldSize, request.size);
    const { status, text: answer } = await post(witness, `old ${oldSize}\n${proof.map((hash) => `${b64(hash)}\n`).join('')}\n${request.note}`, request.timeoutMs);
    if (status === 409) {
      const held = /^(0|[1-9]\d*)\n?$/.exec(answer);
      return held ? { cosigned: false, status, held: Number(held[1]), reason: `it holds a tree of ${held[1]} leaves` } : { cosigned: false, status, reason: 'a 409 without a size' };
    }
    if (status !== 200) return { cosigned: false, status, reason: answer.trim().slice(0, 200) || `answered ${status}` };
    const found = cosignatureIn(answer, text, witness.verifier);
    return found ? { cosigned: true, ...found } : { cosigned: false, status, reason: 'no cosignature by its key verifies' };
  };
  try {
    const first = await attempt(request.oldSize);
    // Once more from the size it holds, when that is a tree this checkpoint can extend.
    if (first.cosigned || first.held === undefined || first.held > request.size || first.held === request.oldSize) return first;
    return await attempt(first.held);
  } catch (error) {
    return { cosigned: false, reason: (error as Error).message };
  }
}
