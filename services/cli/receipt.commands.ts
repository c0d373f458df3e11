/**
 * `watchcat receipt verify FILE [--jwks FILE|URL] [--checkpoint FILE|URL [--log-key KEY]] [--policy FILE] [--allow-plain-http]`:
 * checks a signed answer saved with
 * `curl -si` (see services/audit/receipt/). Exit 0 printing what was signed, by which key and when, and which key set it
 * trusted (where from, and the SHA-256 of its bytes, so that two people can tell they trusted the same); exit 1
 * naming what does not match. Without `--jwks`, the key set of the configured deployment
 * (`PUBLIC_BASE_URL/.well-known/jwks.json`, or the local server on `PORT` when no public base URL is configured).
 * A key set is what a verdict rests on: over plain HTTP it is fetched only from loopback, unless told to.
 * With `--checkpoint`, the transparency checkpoint the receipt pins is checked against that newer signed checkpoint
 * (a file, or a URL, by default the deployment's) by a consistency proof from the deployment
 * (services/audit/receipt/receipt-checkpoint.ts); the log's verifier key is `--log-key`, else the deployment's, under the
 * same rule as the key set. The pinned tree must also hold no event after the position the answer's data was read at
 * (its signed `X-Read-Model-Position`), shown by the deployment's inclusion proof of the event at that position,
 * checked against the pinned root; a receipt that pins a checkpoint without a signed position is refused. Without
 * `--checkpoint`, the signed position and data age (`X-Data-Age`) are reported. With `--policy` (C2SP tlog-policy,
 * shared/read-model/transparency/tlog-policy.ts), the newer checkpoint must also carry the witnesses' cosignatures its quorum
 * asks for: witnesses saw one history holding the receipt's tree.
 *
 * A serial index proof file (services/audit/receipt/index-proof.ts) is checked with the log's verifier key
 * (`--log-key`, else the deployment's) and the witness policy (`--policy`; without one, no cosignature is required)
 * alone: "at checkpoint N, cosigned by k witnesses, serial S was STATUS". A signed answer asked with `proof=index`
 * carries one (services/audit/receipt/answer-body.ts): it is checked the same way once the signature holds, and
 * written with `--save-proof FILE`.
 */
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { deploymentUrl } from '../../shared/public-base-url.ts';
import { type JwkSet, parseJwkSet } from '../../shared/signing/jwk-set.ts';
import { fetchBounded, readFileBounded } from '../audit/bounded-fetch.ts';
import { parseSavedResponse } from '../audit/receipt/saved-response.ts';
import { type ReceiptReport, verifyReceipt } from '../audit/receipt/verify-receipt.ts';
import { parsePolicy, readPolicyFile, requirePolicy, witnessedLine, type TlogPolicy } from '../../shared/read-model/transparency/tlog-policy.ts';
import { indexProofOfAnswer } from '../audit/receipt/answer-body.ts';
import { INDEX_PROOF_HEADER, indexProofLine, uniquenessLine, verifyIndexProof } from '../audit/receipt/index-proof.ts';
import { checkExtends, checkHoldsNothingAfter, pinnedCheckpoint, type InclusionProof } from '../audit/receipt/receipt-checkpoint.ts';
import type { CliModule } from './cli-module.ts';

/** A receipt that does not hold, or cannot be read: the CLI prints the message and exits 1. */
export class ReceiptError extends Error {}

const ALLOW_PLAIN_HTTP = '--allow-plain-http';

interface TrustedKeySet {
  jwks: JwkSet;
  source: string;
  /** SHA-256 of the bytes read, hex. */
  sha256: string;
}

/** 127.0.0.0/8, ::1 and localhost: a plain HTTP answer from them has not crossed a network. */
const isLoopback = (hostname: string) => hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);

/** The bytes of a file or a URL; `what` names it in errors. Plain HTTP only from loopback unless allowed. */
function policyOf(file: string): TlogPolicy {
  try {
    return readPolicyFile(file);
  } catch (error) {
    throw new ReceiptError((error as Error).message);
  }
}

/** The line saying which witnesses cosigned `note`, or a ReceiptError when they do not meet `policy`. */
function witnessedBy(policy: TlogPolicy, note: string): string {
  try {
    return witnessedLine(policy, requirePolicy(policy, note));
  } catch (error) {
    throw new ReceiptError(`receipt checkpoint does not hold: ${(error as Error).message}`);
  }
}

async function readSource(source: string, what: string, allowPlainHttp: boolean): Promise<Buffer> {
  const remote = /^https?:\/\//i.test(source);
  if (remote && !allowPlainHttp && /^http:/i.test(source) && !isLoopback(new URL(source).hostname)) {
    throw new ReceiptError(`refusing ${what} ${source}: plain HTTP from a host other than loopback can be altered on the way; use https, a file, or ${ALLOW_PLAIN_HTTP}`);
  }
  try {
    if (!remote) return await readFileBounded(source);
    const answer = await fetchBounded(source);
    if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
    return answer.body;
  } catch (error) {
    const cause = (error as Error & { cause?: { code?: string } }).cause?.code;
    throw new ReceiptError(`cannot read ${what} ${source}: ${(error as Error).message}${cause ? ` (${cause})` : ''}`);
  }
}

async function readJwks(source: string, allowPlainHttp: boolean): Promise<TrustedKeySet> {
  const bytes = await readSource(source, 'the key set', allowPlainHttp);
  try {
    return { jwks: parseJwkSet(bytes.toString('utf8')), source, sha256: createHash('sha256').update(bytes).digest('hex') };
  } catch (error) {
    throw new ReceiptError(`the key set ${source} is unusable: ${(error as Error).message}`);
  }
}

/** The verdict on a serial index proof file, in the command's words, or a ReceiptError naming what does not hold. */
function checkIndexProof(text: string, logKey: string, policy: TlogPolicy | undefined, indexPolicy: TlogPolicy | undefined): string[] {
  try {
    const verdict = verifyIndexProof(text, logKey, policy ?? parsePolicy(`log ${logKey}\nquorum none`), indexPolicy);
    return [indexProofLine(verdict), uniquenessLine(verdict)];
  } catch (error) {
    throw new ReceiptError(`serial index proof does not hold: ${(error as Error).message}`);
  }
}

async function writeProofFile(file: string, text: string): Promise<void> {
  try {
    await writeFile(file, text, { flag: 'wx' });
  } catch (error) {
    throw new ReceiptError(`cannot save the proof to ${file}: ${(error as Error).message}`);
  }
}

function describe(report: ReceiptReport, keySet: TrustedKeySet): string[] {
  const key = report.key?.exp === undefined ? 'current key' : `retired key, retired at ${new Date(report.key.exp * 1000).toISOString()}`;
  return [
    `receipt holds: signature ${report.label} verified`,
    `answer: ${report.status} to ${report.request ?? 'a request it does not name'}, body ${report.bodyBytes} bytes matching Content-Digest sha-256`,
    ...(report.call === undefined ? [] : [`call: ${report.call} (signed, in the body: the request line above does not name it)`]),
    `signed: ${report.covered?.join(' ')}`,
    `data: ${report.position === undefined ? 'no signed read-model position' : `read at read-model position ${report.position} (signed)`}, `
      + `${report.dataAge === undefined ? 'no signed age' : `${report.dataAge} s old (signed)`}`,
    `by key: ${report.keyid} (${key})`,
    `at: ${report.created?.toISOString()}${report.aheadSeconds === undefined ? '' : ` (${report.aheadSeconds} s ahead of this machine's clock: one of the two clocks is off)`}`,
    `key set: ${keySet.source} (sha-256 ${keySet.sha256})`,
  ];
}

export const receiptCommands: CliModule = (program, context) => {
  program.command('receipt')
    .description('signed answers kept as receipts')
    .command('verify')
    .description('check a signed answer saved with curl -si: its body against Content-Digest, its signature against the key set')
    .argument('<file>', 'the raw HTTP response (status line, headers, blank line, body), or a serial index proof file')
    .option('--jwks <file|url>', 'the JWK Set to check against (default: PUBLIC_BASE_URL/.well-known/jwks.json, else the local server on PORT)')
    .option('--checkpoint [file|url]', 'also check the transparency checkpoint the receipt pins against this newer signed one, by a consistency proof '
      + '(default: the deployment\'s latest), and that the pinned tree holds no event after the signed position the answer\'s data was read at '
      + '(X-Read-Model-Position), by an inclusion proof; a receipt pinning a checkpoint without a signed position is refused')
    .option('--log-key <key>', 'the transparency log\'s verifier key (default: the deployment\'s /.well-known/transparency/key)')
    .option('--policy <file>', 'a witness policy (C2SP tlog-policy): the newer checkpoint (--checkpoint, by default the deployment\'s) must carry the cosignatures its quorum asks for')
    .option('--index-policy <file>', 'for a serial index proof: a witness policy (C2SP tlog-policy) of witnesses held to cosign one checkpoint body per tree size '
      + '(as watchcat witness does; C2SP asks them to check only the root), whose quorum the checkpoint must meet and no two disjoint sets of them may: '
      + 'then no other status of the serial at that size can meet it')
    .option('--save-proof <file>', 'for an answer asked with proof=index: write the serial index proof it carries, checked, as one offline file (a new file: never overwritten)')
    .option(ALLOW_PLAIN_HTTP, 'fetch the key set over plain HTTP from a host other than loopback (it could be altered on the way)')
    .action(async (file: string, options: { jwks?: string; checkpoint?: string | true; logKey?: string; policy?: string; indexPolicy?: string; saveProof?: string; allowPlainHttp?: boolean }) => {
      const policy = options.policy === undefined ? undefined : policyOf(options.policy);
      const indexPolicy = options.indexPolicy === undefined ? undefined : policyOf(options.indexPolicy);
      const checkpoint = options.checkpoint ?? (policy ? true : undefined);
      let bytes;
      try {
        bytes = await readFileBounded(file);
      } catch (error) {
        throw new ReceiptError(`cannot read the receipt ${file}: ${(error as Error).message}`);
      }
      const config = context.config();
      const deployment = deploymentUrl(config);
      const allow = options.allowPlainHttp === true;
      // Asked of the deployment once, though a proof answer checked against a newer checkpoint needs it twice.
      let deploymentLogKey: Promise<string> | undefined;
      const logKeyOf = async () => options.logKey
        ?? await (deploymentLogKey ??= readSource(`${deployment}/.well-known/transparency/key`, 'the log key', allow).then((key) => key.toString('utf8').trim()));
      if (bytes.toString('utf8').startsWith(`${INDEX_PROOF_HEADER}\n`)) {
        if (options.saveProof !== undefined) throw new ReceiptError('--save-proof applies to a saved answer that carries a serial index proof; this is the proof file already');
        for (const line of checkIndexProof(bytes.toString('utf8'), await logKeyOf(), policy, indexPolicy)) context.out(line);
        return;
      }
      let saved;
      try {
        saved = parseSavedResponse(bytes);
      } catch (error) {
        throw new ReceiptError(`cannot read the receipt ${file}: ${(error as Error).message}`);
      }
      const keySet = await readJwks(options.jwks ?? `${deployment}/.well-known/jwks.json`, allow);
      const report = await verifyReceipt(saved, keySet.jwks);
      if (report.problems.length > 0) throw new ReceiptError(`receipt does not hold: ${report.problems.join('; ')}`);
      for (const line of describe(report, keySet)) context.out(line);
      // A proof=index answer carries the file that shows its status at a checkpoint, under the log's key rather than
      // the answer's: checked too, and kept on request, so the buyer needs nothing else offline.
      const proofFile = indexProofOfAnswer(saved.body);
      if (proofFile === undefined && (indexPolicy !== undefined || options.saveProof !== undefined)) {
        throw new ReceiptError(`${indexPolicy !== undefined ? '--index-policy' : '--save-proof'} applies to a serial index proof: this answer carries none (ask with proof=index)`);
      }
      if (proofFile !== undefined) {
        for (const line of checkIndexProof(proofFile, await logKeyOf(), policy, indexPolicy)) context.out(line);
        if (options.saveProof !== undefined) {
          await writeProofFile(options.saveProof, proofFile);
          context.out(`proof: saved to ${options.saveProof}, checked by watchcat receipt verify ${options.saveProof} with the log's key alone`);
        }
      }
      if (checkpoint === undefined) return;
      const pinned = pinnedCheckpoint(saved, report.covered ?? []);
      if (typeof pinned === 'string') throw new ReceiptError(pinned);
      const source = checkpoint === true ? `${deployment}/.well-known/transparency/checkpoint` : checkpoint;
      // Proofs are checked against the roots, so they may come from the server that gave the checkpoint, else the
      // deployment; which leaf holds the event at a position is that server's word (docs/api.md, "Receipts").
      const logBase = /^https?:\/\//i.test(source) ? new URL(source).origin : deployment;
      const note = (await readSource(source, 'the checkpoint', allow)).toString('utf8');
      const witnessed = policy && witnessedBy(policy, note);
      const logKey = await logKeyOf();
      const proofOf = async (from: number, to: number) =>
        JSON.parse((await readSource(`${logBase}/api/public/transparency/consistency?from=${from}&to=${to}`, 'the consistency proof', true)).toString('utf8')) as { root?: string; proof?: string[] };
      const { position } = report;
      if (position === undefined) {
        throw new ReceiptError('receipt checkpoint does not hold: the receipt pins a checkpoint but its signature does not cover the position its data was read at (X-Read-Model-Position)');
      }
      const inclusionOf = async (at: number, size: number) => {
        const url = `${logBase}/api/public/transparency/inclusion?position=${at}&tree_size=${size}`;
        const answer = await fetchBounded(url).catch((error: unknown) => {
          throw new Error(`cannot read the inclusion proof ${url}: ${(error as Error).message}`);
        });
        // 422: that tree holds no event at that position.
        if (answer.status === 422) return undefined;
        if (!answer.ok) throw new Error(`cannot read the inclusion proof ${url}: HTTP ${answer.status}`);
        return JSON.parse(answer.body.toString('utf8')) as InclusionProof;
      };
      try {
        const newer = await checkExtends(pinned, note, logKey, proofOf);
        context.out(`data: ${await checkHoldsNothingAfter(pinned, position, newer, inclusionOf)}, so the tree holds no event the answer had not seen`);
        context.out(`checkpoint: the receipt's tree of ${pinned.size} leaves (root ${pinned.root}) is extended by ${newer.origin}'s checkpoint of ${newer.size} leaves (${source})`);
        if (witnessed) context.out(witnessed);
      } catch (error) {
        throw new ReceiptError(`receipt checkpoint does not hold: ${(error as Error).message}`);
      }
    });
};
