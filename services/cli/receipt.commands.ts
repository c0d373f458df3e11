/**
 * `watchcat receipt verify FILE [--jwks FILE|URL] [--allow-plain-http]`: checks a signed answer saved with
 * `curl -si` (see services/receipt/). Exit 0 printing what was signed, by which key and when, and which key set it
 * trusted (where from, and the SHA-256 of its bytes, so that two people can tell they trusted the same); exit 1
 * naming what does not match. Without `--jwks`, the key set of the configured deployment
 * (`PUBLIC_BASE_URL/.well-known/jwks.json`, or the local server on `PORT` when no public base URL is configured).
 * A key set is what a verdict rests on: over plain HTTP it is fetched only from loopback, unless told to.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { baseUrl } from '../../shared/public-base-url.ts';
import { type JwkSet, parseJwkSet } from '../../shared/signing/jwk-set.ts';
import { parseSavedResponse } from '../receipt/saved-response.ts';
import { type ReceiptReport, verifyReceipt } from '../receipt/verify-receipt.ts';
import type { CliModule } from './cli-module.ts';

/** A receipt that does not hold, or cannot be read: the CLI prints the message and exits 1. */
export class ReceiptError extends Error {}

const JWKS_FETCH_TIMEOUT_MS = 10_000;
const ALLOW_PLAIN_HTTP = '--allow-plain-http';

interface TrustedKeySet {
  jwks: JwkSet;
  source: string;
  /** SHA-256 of the bytes read, hex. */
  sha256: string;
}

/** 127.0.0.0/8, ::1 and localhost: a plain HTTP answer from them has not crossed a network. */
const isLoopback = (hostname: string) => hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);

async function readJwks(source: string, allowPlainHttp: boolean): Promise<TrustedKeySet> {
  let bytes: Buffer;
  const remote = /^https?:\/\//i.test(source);
  if (remote && !allowPlainHttp && /^http:/i.test(source) && !isLoopback(new URL(source).hostname)) {
    throw new ReceiptError(`refusing the key set ${source}: plain HTTP from a host other than loopback can be altered on the way; use https, a file, or ${ALLOW_PLAIN_HTTP}`);
  }
  try {
    if (remote) {
      const answer = await fetch(source, { signal: AbortSignal.timeout(JWKS_FETCH_TIMEOUT_MS) });
      if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
      bytes = Buffer.from(await answer.arrayBuffer());
    } else {
      bytes = await readFile(source);
    }
  } catch (error) {
    const cause = (error as Error & { cause?: { code?: string } }).cause?.code;
    throw new ReceiptError(`cannot read the key set ${source}: ${(error as Error).message}${cause ? ` (${cause})` : ''}`);
  }
  try {
    return { jwks: parseJwkSet(bytes.toString('utf8')), source, sha256: createHash('sha256').update(bytes).digest('hex') };
  } catch (error) {
    throw new ReceiptError(`the key set ${source} is unusable: ${(error as Error).message}`);
  }
}

function describe(report: ReceiptReport, keySet: TrustedKeySet): string[] {
  const key = report.key?.exp === undefined ? 'current key' : `retired key, retired at ${new Date(report.key.exp * 1000).toISOString()}`;
  return [
    `receipt holds: signature ${report.label} verified`,
    `answer: ${report.status} to ${report.request ?? 'a request it does not name'}, body ${report.bodyBytes} bytes matching Content-Digest sha-256`,
    `signed: ${report.covered?.join(' ')}`,
    `by key: ${report.keyid} (${key})`,
    `at: ${report.created?.toISOString()}`,
    `key set: ${keySet.source} (sha-256 ${keySet.sha256})`,
  ];
}

export const receiptCommands: CliModule = (program, context) => {
  program.command('receipt')
    .description('signed answers kept as receipts')
    .command('verify')
    .description('check a signed answer saved with curl -si: its body against Content-Digest, its signature against the key set')
    .argument('<file>', 'the raw HTTP response (status line, headers, blank line, body)')
    .option('--jwks <file|url>', 'the JWK Set to check against (default: PUBLIC_BASE_URL/.well-known/jwks.json, else the local server on PORT)')
    .option(ALLOW_PLAIN_HTTP, 'fetch the key set over plain HTTP from a host other than loopback (it could be altered on the way)')
    .action(async (file: string, options: { jwks?: string; allowPlainHttp?: boolean }) => {
      let saved;
      try {
        saved = parseSavedResponse(await readFile(file));
      } catch (error) {
        throw new ReceiptError(`cannot read the receipt ${file}: ${(error as Error).message}`);
      }
      const config = context.config();
      const deployment = baseUrl(config) || `http://127.0.0.1:${config.PORT}`;
      const keySet = await readJwks(options.jwks ?? `${deployment}/.well-known/jwks.json`, options.allowPlainHttp === true);
      const report = await verifyReceipt(saved, keySet.jwks);
      if (report.problems.length > 0) throw new ReceiptError(`receipt does not hold: ${report.problems.join('; ')}`);
      for (const line of describe(report, keySet)) context.out(line);
    });
};
