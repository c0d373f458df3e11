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

/** Header lines with each continuation line joined to the one before it by a single space. */
function unfolded(lines: string[]): string[] {
  const joined: string[] = [];
  for (const line of lines) {
    const last = joined.length - 1;
    if (/^[ \t]/.test(line) && last >= 0) joined[last] = `${(joined[last] as string).trimEnd()} ${line.trim()}`;
    else joined.push(line);
  }
  return joined;
}

/** The head (latin1, as HTTP field bytes are) up to the first empty line, and the bytes after it. */
function splitHead(bytes: Buffer): { head: string; body: Buffer } {
  const crlf = bytes.indexOf('\r\n\r\n');
  const lf = bytes.indexOf('\n\n');
  if (crlf < 0 && lf < 0) throw new SavedResponseError('no blank line ends the headers');
  const [end, gap] = lf < 0 || (crlf >= 0 && crlf < lf) ? [crlf, 4] : [lf, 2];
  return { head: bytes.subarray(0, end).toString('latin1'), body: bytes.subarray(end + gap) };
}
