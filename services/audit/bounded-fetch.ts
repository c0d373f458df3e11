/**
 * What the checking commands read from a service (`receipt verify`, `audit log watch`, `audit log verify --log`): a
 * log that misbehaves is what they are there to catch, so no answer may hold them forever or fill their memory. Each
 * read has a deadline for the whole exchange, its body included, and a size past which it is dropped; what they read
 * (key sets, checkpoints, key histories, proofs) is a few kilobytes. The files `receipt verify` is given (a saved
 * answer, a proof file, a key set, a checkpoint) are read to the same size at most: `/dev/zero` or a disk image
 * named by mistake is refused, not read until memory runs out.
 */
import { open } from 'node:fs/promises';

/** Past it, an answer is not one of those the commands read: far above any of them, far below a machine's memory. */
export const MAX_ANSWER_BYTES = 1 << 20;

/** How long a read may take, its body included. */
export const READ_TIMEOUT_MS = 10_000;

export class AnswerTooLargeError extends Error {}

export interface BoundedAnswer {
  status: number;
  ok: boolean;
  body: Buffer;
}

/**
 * The answer at `url`, its body read whole, or a rejection: the network's error, `TimeoutError` past `timeoutMs`, or
 * AnswerTooLargeError past `maxBytes` (as soon as its Content-Length says so, or its bytes reach it).
 */
export async function fetchBounded(
  url: string | URL, { maxBytes = MAX_ANSWER_BYTES, timeoutMs = READ_TIMEOUT_MS } = {},
): Promise<BoundedAnswer> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  const tooLarge = () => new AnswerTooLargeError(`its answer is larger than the ${maxBytes} bytes read of one`);
  if (Number(response.headers.get('content-length')) > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop early cancels the stream: nothing more is downloaded.
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength;
    if (size > maxBytes) throw tooLarge();
    chunks.push(Buffer.from(chunk));
  }
  return { status: response.status, ok: response.ok, body: Buffer.concat(chunks) };
}

/** The bytes of the file at `path`, or a rejection: the file system's error, or AnswerTooLargeError past `maxBytes`. */
export async function readFileBounded(path: string, maxBytes = MAX_ANSWER_BYTES): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    // One byte more than the bound, to tell a file of exactly `maxBytes` from a larger one.
    const bytes = Buffer.alloc(maxBytes + 1);
    let size = 0;
    for (;;) {
      const { bytesRead } = await file.read(bytes, size, bytes.length - size, null);
      size += bytesRead;
      if (bytesRead === 0 || size > maxBytes) break;
    }
    if (size > maxBytes) throw new AnswerTooLargeError(`it is larger than the ${maxBytes} bytes read of one`);
    return bytes.subarray(0, size);
  } finally {
    await file.close();
  }
}
