/**
 * `watchcat witness` run in this process (services/witness/witness.command.ts), for tests that stop it as an
 * orchestrator does: SIGTERM is emitted on the process, which only the command listens to.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createCliContext } from '../../services/cli/cli-context.ts';
import { run } from '../../services/cli/program.ts';
import { checkpointBody } from '../../shared/read-model/transparency/checkpoint.ts';
import type { MemoryTree } from '../../shared/read-model/transparency/memory-tree.ts';
import { signNote } from '../../shared/read-model/transparency/signed-note.ts';
import { specVerifierKey } from './note-keys.ts';

export const ORIGIN = 'watch.example/watchcat/events';
const NAME = 'witness.example/w1';

/** `watchcat witness` in this process: its output lines, its exit code once it ends, its URL once it listens. */
export function runWitness(dir: string, args: readonly string[], logKey = generateKeyPairSync('ed25519').privateKey) {
  const lines: string[] = [];
  const context = createCliContext({ DATA_DIR: dir, LOG_LEVEL: 'silent' }, { out: (line) => lines.push(line), note: (line) => lines.push(line) });
  const exit = run(['node', 'watchcat', 'witness', '--name', NAME, '--log', specVerifierKey(ORIGIN, logKey), '--port', '0', ...args], context);
  let ended = false;
  void exit.then(() => { ended = true; });
  return {
    lines, exit,
    /** The URL it listens on; rejects when it ended instead. */
    async url(): Promise<string> {
      for (;;) {
        const listening = lines.map((line) => /listening on (http:\/\/\S+)/.exec(line)?.[1]).find(Boolean);
        if (listening) return listening;
        if (ended) throw new Error(`the witness ended: ${lines.join('\n')}`);
        await sleep(10);
      }
    },
    /** Its exit code, when it refuses to start; when it starts instead, it is stopped and this rejects. */
    async refusal(): Promise<number> {
      const started = await Promise.race([exit.then(() => false), this.url().then(() => true)]);
      if (started) {
        process.emit('SIGTERM', 'SIGTERM');
        await exit;
        throw new Error('the witness started');
      }
      return exit;
    },
    /** SIGTERM, as an orchestrator stops it; resolves with its exit code. */
    stop(): Promise<number> {
      process.emit('SIGTERM', 'SIGTERM');
      return exit;
    },
  };
}

/** Submits `tree`, signed by `logKey`, from `old` (0: from the empty tree). */
export function submitTree(url: string, logKey: KeyObject, tree: MemoryTree, old = 0): Promise<Response> {
  const proof = old === 0 ? [] : tree.consistency(old, tree.size);
  const note = signNote(checkpointBody({ origin: ORIGIN, size: tree.size, root: tree.root() }), ORIGIN, logKey);
  const body = `old ${old}\n${proof.map((hash) => `${Buffer.from(hash).toString('base64')}\n`).join('')}\n${note}`;
  return fetch(`${url}/add-checkpoint`, { method: 'POST', body });
}

/** The HTTP status of submitTree. */
export const addTree = async (...args: Parameters<typeof submitTree>): Promise<number> => (await submitTree(...args)).status;

