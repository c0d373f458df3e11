/**
 * A witness's durable state: per log origin, the tree it last cosigned (witness.ts), in one JSON file. A witness that
 * forgot a tree could cosign a fork of it, so the file is written so that a crash never loses or tears it: the new
 * state goes to a file beside it, flushed to disk, renamed over it (atomic), and the directory flushed; the answer is
 * sent only after. A file that cannot be read stops the witness at start rather than let it begin again from nothing.
 * One witness process per file: a lock file beside it names the process holding it (one left by a process that died
 * is taken over).
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { mkdir, open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { WitnessError, type WitnessedTree, type WitnessStore } from './witness.ts';

interface WitnessStateFile extends WitnessStore {
  /** Lets go of the lock. */
  close(): void;
}

interface StoredState { logs: Record<string, WitnessedTree> }

const isTree = (tree: unknown): tree is WitnessedTree => {
  const { size, root, note } = (tree ?? {}) as Partial<WitnessedTree>;
  return Number.isSafeInteger(size) && size! >= 0 && typeof root === 'string' && Buffer.from(root, 'base64').length === 32 && typeof note === 'string';
};

function readState(file: string): Map<string, WitnessedTree> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw new WitnessError(`cannot read the witness state ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  let logs: unknown;
  try {
    ({ logs } = JSON.parse(text) as StoredState);
  } catch {
    logs = undefined;
  }
  if (typeof logs !== 'object' || logs === null || !Object.values(logs).every(isTree)) {
    throw new WitnessError(`the witness state ${file} is not the JSON a witness writes: restore it from a backup (starting afresh could cosign a fork)`);
  }
  return new Map(Object.entries(logs as Record<string, WitnessedTree>));
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Takes `lock` for this process, or throws naming the live process that holds it. */
function takeLock(lock: string): void {
  for (let tries = 0; tries < 2; tries += 1) {
    try {
      const fd = openSync(lock, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new WitnessError(`cannot take the lock ${lock}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    const holder = Number(readFileSync(lock, 'utf8').trim());
    if (Number.isSafeInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
      throw new WitnessError(`another witness (process ${holder}) uses this state: ${lock}`);
    }
    unlinkSync(lock);
  }
  throw new WitnessError(`cannot take the lock ${lock}`);
}

/** Writes `text` to `file` whole or not at all, durably. */
async function writeDurably(file: string, text: string): Promise<void> {
  const aside = `${file}.tmp`;
  const handle = await open(aside, 'w', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(aside, file);
  // The rename is durable once the directory that holds the name is.
  const directory = await open(dirname(file), 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

export async function openWitnessState(file: string): Promise<WitnessStateFile> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const lock = `${file}.lock`;
  takeLock(lock);
  let trees: Map<string, WitnessedTree>;
  try {
    trees = readState(file);
  } catch (error) {
    unlinkSync(lock);
    throw error;
  }
  return {
    get: (origin) => trees.get(origin),
    put: async (origin, tree) => {
      const next = new Map(trees).set(origin, tree);
      await writeDurably(file, `${JSON.stringify({ logs: Object.fromEntries(next) }, null, 2)}\n`);
      // Held in memory only once it is on disk: an answer never rests on a tree a crash would forget.
      trees = next;
    },
    close: () => {
      try {
        unlinkSync(lock);
      } catch {
        // Already gone: nothing to let go of.
      }
    },
  };
}
