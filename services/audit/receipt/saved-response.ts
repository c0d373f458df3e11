/**
 * A saved HTTP response as `curl -si` writes it: status line, header lines, a blank line, the body bytes, with
 * CRLF or bare LF line ends. Interim 1xx answers that curl prints before the final one are skipped. A header line
 * folded onto the next (obs-fold: a line starting with a space or tab) is unfolded, the fold read as one space, as
 * RFC 9112 (section 5.2) tells a recipient to.
 */
export interface SavedResponse {
  status: number;
  /** Lower-case names (own members only: no name reads through to Object's); a field sent on several lines keeps each value, in order. */
  headers: Record<string, string[]>;
  body: Buffer;
}

export class SavedResponseError extends Error {}

export function parseSavedResponse(bytes: Buffer): SavedResponse {
  let rest = bytes;
  for (;;) {
    const { head, body } = splitHead(rest);
    const [statusLine = '', ...lines] = head.split(/\r?\n/);
    const status = /^HTTP\/[0-9.]+ (\d{3})(?: |$)/.exec(statusLine);
    if (!status) throw new SavedResponseError('it does not start with an HTTP status line (save the answer with curl -si)');
    const code = Number(status[1]);
    if (code >= 100 && code < 200) {
      rest = body;
      continue;
    }
    const headers = Object.create(null) as Record<string, string[]>;
    for (const line of unfolded(lines)) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw new SavedResponseError(`header line without a name: ${JSON.stringify(line.slice(0, 60))}`);
      const name = line.slice(0, colon).trim().toLowerCase();
      (headers[name] ??= []).push(line.slice(colon + 1).trim());
    }
    return { status: code, headers, body };
  }
}

/**
 * Header lines with each continuation line joined to the one before it by a single space. Each line's parts are
 * joined once at the end: a field folded over many lines costs the length of its lines, not their square.
 */
function unfolded(lines: string[]): string[] {
  const joined: string[][] = [];
  for (const line of lines) {
    const last = joined.at(-1);
    if (/^[ \t]/.test(line) && last !== undefined) last.push(line.trim());
    else joined.push([line]);
  }
  return joined.map(([first = '', ...folds]) => (folds.length === 0 ? first : [first.trimEnd(), ...folds].join(' ')));
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * The head (latin1, as HTTP field bytes are) up to the first empty line (`\n\n`, or `\r\n\r\n`), and the bytes after
 * it. One pass over the head's line ends: the rest is never searched, so many interim answers cost their length.
 */
function splitHead(bytes: Buffer): { head: string; body: Buffer } {
  for (let lf = bytes.indexOf(LF); lf >= 0; lf = bytes.indexOf(LF, lf + 1)) {
    let end: number | undefined;
    let gap = 0;
    if (bytes[lf + 1] === LF) [end, gap] = [lf, 2];
    else if (bytes[lf - 1] === CR && bytes[lf + 1] === CR && bytes[lf + 2] === LF) [end, gap] = [lf - 1, 4];
    if (end !== undefined) return { head: bytes.subarray(0, end).toString('latin1'), body: bytes.subarray(end + gap) };
  }
  throw new SavedResponseError('no blank line ends the headers');
}
