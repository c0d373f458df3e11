/**
 * `watchcat audit log watch URL [--state FILE] [--key KEY] [--once] [--every SECONDS]`: a monitor of the service's
 * transparency log, as a witness runs one. It keeps every checkpoint it has seen in a state file and checks each new
 * one against the last: a smaller tree is a rollback, another root for the same size or a consistency proof that
 * fails is a fork; either exits 1. The verifier key is the one given, or the one the service served the first time,
 * pinned in the state file.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { parseCheckpoint } from '../../shared/transparency/checkpoint.ts';
import { verifyConsistency } from '../../shared/transparency/merkle.ts';
import { openNote } from '../../shared/transparency/signed-note.ts';
import type { CliContext } from '../cli/cli-context.ts';
import { AuditError } from './audit-sources.ts';

interface SeenCheckpoint { size: number; root: string; note: string; seen_at: string }
interface WatchState { url: string; verifier_key: string; checkpoints: SeenCheckpoint[] }

async function fetchText(url: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new AuditError(`cannot reach ${url}: ${(error as Error).message}`);
  }
  if (!response.ok) throw new AuditError(`${url} answered ${response.status}`);
  return response.text();
}

function readState(file: string): WatchState | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as WatchState;
  } catch {
    throw new AuditError(`the state file ${file} is not the JSON this monitor writes`);
  }
}

function writeState(file: string, state: WatchState): void {
  // Written aside then renamed: a monitor stopped mid-write keeps its previous state whole.
  writeFileSync(`${file}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}

/** Fetches the latest checkpoint and checks it against the last one kept; answers the state with it added. */
async function checkOnce(context: CliContext, base: string, state: WatchState): Promise<WatchState> {
  const note = await fetchText(`${base}/.well-known/transparency/checkpoint`);
  let current;
  try {
    current = parseCheckpoint(openNote(note, state.verifier_key));
  } catch (error) {
    throw new AuditError(`checkpoint of ${base}: ${(error as Error).message}`);
  }
  const root = Buffer.from(current.root).toString('base64');
  const last = state.checkpoints.at(-1);
  if (last && current.size < last.size) {
    throw new AuditError(`rollback: ${base} now signs a tree of ${current.size} leaves, after one of ${last.size} (root ${last.root})`);
  }
  if (last && current.size === last.size && root !== last.root) {
    throw new AuditError(`fork: ${base} signs two trees of ${current.size} leaves, roots ${last.root} and ${root}`);
  }
  if (last && last.size > 0 && current.size > last.size) {
    const proof = JSON.parse(await fetchText(`${base}/api/public/transparency/consistency?from=${last.size}&to=${current.size}`)) as { root?: string; proof?: string[] };
    const hashes = (proof.proof ?? []).map((hash) => Buffer.from(hash, 'base64'));
    if (proof.root !== root || !verifyConsistency(last.size, current.size, Buffer.from(last.root, 'base64'), current.root, hashes)) {
      throw new AuditError(`fork: the tree of ${current.size} leaves does not extend the tree of ${last.size} leaves (root ${last.root}) signed before`);
    }
  }
  if (last && current.size === last.size) {
    context.out(`${current.origin}: ${current.size} leaves, unchanged`);
    return state;
  }
  context.out(`${current.origin}: ${current.size} leaves, root ${root}${last ? `, consistent with ${last.size}` : ''}`);
  return { ...state, checkpoints: [...state.checkpoints, { size: current.size, root, note, seen_at: new Date().toISOString() }] };
}

async function runWatch(context: CliContext, url: string, options: { state: string; key?: string; once?: boolean; every: number }): Promise<void> {
  const base = url.replace(/\/$/, '');
  let state = readState(options.state);
  const key = options.key ?? state?.verifier_key ?? (await fetchText(`${base}/.well-known/transparency/key`)).trim();
  if (state && state.verifier_key !== key) throw new AuditError(`the state file ${options.state} was kept under another verifier key: start a new state file`);
  state ??= { url: base, verifier_key: key, checkpoints: [] };
  for (;;) {
    state = await checkOnce(context, base, state);
    writeState(options.state, state);
    if (options.once) return;
    await sleep(options.every * 1_000);
  }
}

function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a number of seconds above 0');
  return n;
}

export function logWatchCommand(log: Command, context: CliContext): void {
  log.command('watch')
    .description('monitor a service\'s transparency log: keep every checkpoint seen and check each new one for consistency with the last; exit code 1 on a fork or a rollback')
    .argument('<url>', 'the service\'s public base URL')
    .option('--state <file>', 'where the checkpoints seen are kept', 'transparency-checkpoints.json')
    .option('--key <key>', 'the log\'s verifier key; default: the one the service served first, pinned in the state file')
    .option('--once', 'check once and stop')
    .option('--every <seconds>', 'how often to check', seconds, 10)
    .action((url: string, options: { state: string; key?: string; once?: boolean; every: number }) => runWatch(context, url, options));
}
