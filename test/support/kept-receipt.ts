/** A signed answer kept as a buyer keeps it with `curl -si` (status line, headers, blank line, body), for `receipt verify`. */
import { writeFileSync } from 'node:fs';

/** Asks `url` for an answer signed over its status, writes it to `file`, and answers the response's headers. */
export async function keepReceipt(url: string, file: string): Promise<Headers> {
  const answer = await fetch(url, { headers: { 'Accept-Signature': 'sig1=("@status")' } });
  const headers = [...answer.headers].map(([name, value]) => `${name}: ${value}`).join('\r\n');
  writeFileSync(file, `HTTP/1.1 ${answer.status} OK\r\n${headers}\r\n\r\n${await answer.text()}`);
  return answer.headers;
}
