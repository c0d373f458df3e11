/**
 * `watchcat receipt verify FILE [--jwks FILE|URL]`: checks a signed answer saved with `curl -si` (see
 * services/receipt/). Exit 0 printing what was signed, by which key and when; exit 1 naming what does not match.
 * Without `--jwks`, the key set of the configured deployment (`PUBLIC_BASE_URL/.well-known/jwks.json`, or the local
 * server on `PORT` when no public base URL is configured).
 */
import { readFile } from 'node:fs/promises';
import { baseUrl } from '../../shared/public-base-url.ts';
import { type JwkSet, parseJwkSet } from '../../shared/signing/jwk-set.ts';
import { parseSavedResponse } from '../receipt/saved-response.ts';
import { type ReceiptReport, verifyReceipt } from '../receipt/verify-receipt.ts';
import type { CliModule } from './cli-module.ts';

/** A receipt that does not hold, or cannot be read: the CLI prints the message and exits 1. */
export class ReceiptError extends Error {}

const JWKS_FETCH_TIMEOUT_MS = 10_000;

async function readJwks(source: string): Promise<JwkSet> {
  let text: string;
  try {
    if (/^https?:\/\//i.test(source)) {
      const answer = await fetch(source, { signal: AbortSignal.timeout(JWKS_FETCH_TIMEOUT_MS) });
      if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
      text = await answer.text();
    } else {
      text = await readFile(source, 'utf8');
    }
  } catch (error) {
    throw new ReceiptError(`cannot read the key set ${source}: ${(error as Error).message}`);
  }
  try {
    return parseJwkSet(text);
  } catch (error) {
    throw new ReceiptError(`the key set ${source} is unusable: ${(error as Error).message}`);
  }
}

function describe(report: ReceiptReport): string[] {
  const key = report.key?.exp === undefined ? 'current key' : `retired key, retired at ${new Date(report.key.exp * 1000).toISOString()}`;
  return [
    `receipt holds: signature ${report.label} verified`,
    `answer: ${report.status} to ${report.request ?? 'a request it does not name'}, body ${report.bodyBytes} bytes matching Content-Digest sha-256`,
    `signed: ${report.covered?.join(' ')}`,
    `by key: ${report.keyid} (${key})`,
    `at: ${report.created?.toISOString()}`,
  ];
}

export const receiptCommands: CliModule = (program, context) => {
  program.command('receipt')
    .description('signed answers kept as receipts')
    .command('verify')
    .description('check a signed answer saved with curl -si: its body against Content-Digest, its signature against the key set')
    .argument('<file>', 'the raw HTTP response (status line, headers, blank line, body)')
    .option('--jwks <file|url>', 'the JWK Set to check against (default: PUBLIC_BASE_URL/.well-known/jwks.json, else the local server on PORT)')
    .action(async (file: string, options: { jwks?: string }) => {
      let saved;
      try {
        saved = parseSavedResponse(await readFile(file));
      } catch (error) {
        throw new ReceiptError(`cannot read the receipt ${file}: ${(error as Error).message}`);
      }
      const config = context.config();
      const deployment = baseUrl(config) || `http://127.0.0.1:${config.PORT}`;
      const jwks = await readJwks(options.jwks ?? `${deployment}/.well-known/jwks.json`);
      const report = await verifyReceipt(saved, jwks);
      if (report.problems.length > 0) throw new ReceiptError(`receipt does not hold: ${report.problems.join('; ')}`);
      for (const line of describe(report)) context.out(line);
    });
};
