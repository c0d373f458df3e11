/** An answer saved as the README has a buyer save one: `curl -si`, its exact bytes (status line, headers, body). */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/** `curl -si` of `url` with `headers`; a POST of `data` when given. */
export async function curlSi(url: string, headers: Record<string, string>, data?: string): Promise<Buffer> {
  const args = ['-si', ...Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`])];
  if (data !== undefined) args.push('-X', 'POST', '--data', data);
  const { stdout } = await promisify(execFile)('curl', [...args, url], { encoding: 'buffer' });
  return stdout;
}
