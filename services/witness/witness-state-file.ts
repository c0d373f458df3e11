/**
 * A witness's durable state: per log origin, the tree it last cosigned (witness.ts), in one JSON file. A witness that
 * forgot a tree could cosign a fork of it, so the file is written so that a crash never loses or tears it: the new
 * state goes to a file beside it, flushed to disk, renamed over it (atomic), and the directory flushed; the answer is
 * sent only after. A file that cannot be read stops the witness at start rather than let it begin again from nothing.
 * The state records the public key it is written for: a state of another key is refused, and so is a missing state
 * unless the caller says the key is new (generated just now, or `--new-state`): a key that cosigned before, started
 * on an empty state (a lost volume, another `--state`), would cosign a fork of every tree it forgot. A state written
 * before the key was recorded is taken as this key's, and the key recorded at once (docs/audit.md, "Witnesses").
 * One witness process per file: a lock file beside it names the process holding it, its host and its instance. A lock
 * is taken over only when it is known stale: written on this host by a process that is gone, or by an earlier process
 * of this very pid that this process does not hold it for (a restarted container, pid 1 again). A lock written on
 * another host (another container on a shared volume, where the pid says nothing) is never taken over: its witness
 * may be live, and two witnesses on one state would each cosign a tree of its own, a fork under one key. Since a
 * process of this pid on a host of this name may still be another one (containers sharing the host's hostname, each
 * pid 1), every write is fenced by the lock: a witness that finds its lock taken over writes and cosigns no more.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, linkSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { KeyObject } from 'node:crypto';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { rawPublicKey } from '../../shared/read-model/transparency/signed-note.ts';
import { makeDirectory } from './durable-directory.ts';
import { WitnessError, type WitnessedTree, type WitnessStore } from './witness.ts';

interface WitnessStateFile extends WitnessStore {
  /**
   * Stores nothing more, waits for the write in progress, then lets go of the lock: let go sooner, the lock could
   * pass to a next witness while this one's rename or directory flush is still under way.
   */
  close(): Promise<void>;
}

/** What the file holds: `publicKey`, the witness's (base64), is absent from a state written before it was recorded. */
interface StoredState { publicKey?: string; logs: Record<string, WitnessedTree> }

const isTree = (tree: unknown): tree is WitnessedTree => {
  const { size, root, note } = (tree ?? {}) as Partial<WitnessedTree>;
  return Number.isSafeInteger(size) && size! >= 0 && typeof root === 'string' && Buffer.from(root, 'base64').length === 32 && typeof note === 'string';
};

const isPublicKey = (key: unknown): boolean => typeof key === 'string' && Buffer.from(key, 'base64').length === 32;

/** The state in `file`, or undefined when there is none. */
function readState(file: string): { publicKey?: string; trees: Map<string, WitnessedTree> } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new WitnessError(`cannot read the witness state ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  let stored: Partial<StoredState> | undefined;
  try {
    stored = JSON.parse(text) as Partial<StoredState>;
  } catch {
    stored = undefined;
  }
  const { publicKey, logs } = stored ?? {};
  if (typeof logs !== 'object' || logs === null || !Object.values(logs).every(isTree) || (publicKey !== undefined && !isPublicKey(publicKey))) {
    throw new WitnessError(`the witness state ${file} is not the JSON a witness writes: restore it from a backup (starting afresh could cosign a fork)`);
  }
  return { ...(publicKey === undefined ? {} : { publicKey }), trees: new Map(Object.entries(logs)) };
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** What a lock file says of its holder. A lock of an earlier version holds the pid alone (its host unknown). */
interface LockHolder { pid: number; host?: string; instance?: string }

/** The locks this process holds: opening one of them again is a second witness on the state. */
const held = new Set<string>();

function readHolder(lock: string): { text: string; holder: LockHolder } {
  const text = readFileSync(lock, 'utf8');
  try {
    const holder = JSON.parse(text) as LockHolder;
    if (Number.isSafeInteger(holder.pid)) return { text, holder };
  } catch {
    // An earlier version's lock (a pid), or one caught before its holder wrote it.
  }
  return { text, holder: { pid: Number(text.trim()) } };
}

/** Why `holder` may still hold the lock, or undefined when it is known gone. */
function liveHolder(lock: string, holder: LockHolder): string | undefined {
  const named = `another witness (process ${holder.pid}) uses this state`;
  if (held.has(lock)) return `${named}: this process holds ${lock} already`;
  if (holder.host !== undefined && holder.host !== hostname()) {
    return `${named}, on host ${holder.host}: ${lock} (if that witness is gone for good, remove the lock file)`;
  }
  // Not written yet (its holder is between creating and writing it): live.
  if (!Number.isSafeInteger(holder.pid) || holder.pid <= 0) return `${named}: ${lock}`;
  // This pid on this host, not held here: an earlier process of this pid, gone (no two live processes share one).
  if (holder.pid === process.pid) return undefined;
  return isAlive(holder.pid) ? `${named}: ${lock}` : undefined;
}

/**
 * Moves a stale lock away if it still holds `text`: the rename is atomic, so of two processes taking over the same
 * stale lock one moves it and the other finds nothing; one that moved a fresh lock instead (taken meanwhile) puts it
 * back, where nothing else stands.
 */
function moveStaleLock(lock: string, text: string): void {
  const aside = `${lock}.${randomUUID()}`;
  try {
    renameSync(lock, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (readFileSync(aside, 'utf8') !== text) {
    try {
      linkSync(aside, lock);
    } catch {
      // Another lock stands there now: the one moved was not the last; it is dropped below all the same.
    }
  }
  unlinkSync(aside);
}

/** Takes `lock` for this process, or throws naming the witness that may hold it. */
function takeLock(lock: string): string {
  const mine = `${JSON.stringify({ pid: process.pid, host: hostname(), instance: randomUUID() })}\n`;
  for (let tries = 0; tries < 3; tries += 1) {
    if (!held.has(lock)) {
      try {
        const fd = openSync(lock, 'wx', 0o600);
        writeSync(fd, mine);
        closeSync(fd);
        held.add(lock);
        return mine;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new WitnessError(`cannot take the lock ${lock}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
      }
    }
    let stood: { text: string; holder: LockHolder };
    try {
      stood = readHolder(lock);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    const why = liveHolder(lock, stood.holder);
    if (why !== undefined) throw new WitnessError(why);
    moveStaleLock(lock, stood.text);
  }
  throw new WitnessError(`cannot take the lock ${lock}`);
}

/**
 * Removes the temporary files earlier holders of the lock left (`<file>.<holder>.tmp`, or `<file>.tmp` from an earlier
 * release): after a crash, or by a holder whose lock was taken over and may still be writing (it then renames nothing,
 * and cosigns nothing).
 */
function removeEarlierTemporaries(file: string): void {
  const prefix = `${basename(file)}.`;
  for (const name of readdirSync(dirname(file)).filter((entry) => entry.startsWith(prefix) && entry.endsWith('.tmp'))) {
    try {
      unlinkSync(join(dirname(file), name));
    } catch {
      // Gone meanwhile.
    }
  }
}

/**
 * Writes `text` to `file` whole or not at all, durably, through `aside`, a temporary file of this holder's own (a
 * shared one could be truncated by a holder that took the lock over while this one writes). `fence` throws when this
 * process may no longer write: it is asked just before the rename, in the same turn, so a witness whose lock was
 * taken over never overwrites the state its successor read.
 */
async function writeDurably(file: string, aside: string, text: string, fence: () => void): Promise<void> {
  const handle = await open(aside, 'w', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  fence();
  renameSync(aside, file);
  // The rename is durable once the directory that holds the name is.
  const directory = await open(dirname(file), 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

/** Whose state it is. */
export interface StateOwner {
  /** The witness's key: the state is written for it, and one written for another key is refused. */
  key: KeyObject;
  /**
   * When there is no state: `refused` (the key may have cosigned trees a lost state held), `allowed` (the key was
   * generated just now), `required` (`--new-state`: the operator says the key may start empty; a state that exists
   * is refused, so that the flag, left in place, never empties a state lost later).
   */
  newState: 'refused' | 'allowed' | 'required';
}

export async function openWitnessState(file: string, owner: StateOwner): Promise<WitnessStateFile> {
  await makeDirectory(dirname(file));
  const lock = `${file}.lock`;
  const mine = takeLock(lock);
  /** Lets go of the lock if it is still this process's (never one another witness took since). */
  const release = () => {
    held.delete(lock);
    try {
      if (readFileSync(lock, 'utf8') === mine) unlinkSync(lock);
    } catch {
      // Already gone: nothing to let go of.
    }
  };
  const publicKey = rawPublicKey(owner.key).toString('base64');
  const serialize = (logs: Map<string, WitnessedTree>) => `${JSON.stringify({ publicKey, logs: Object.fromEntries(logs) }, null, 2)}\n`;
  /**
   * Throws once the lock is no longer this process's (another witness took it over, taking it for stale): that one
   * read the state and answers from it, so this one must neither write nor cosign again, or one key would cosign two
   * trees.
   */
  let lost = false;
  const aside = `${file}.${randomUUID()}.tmp`;
  const fence = () => {
    let holder: string | undefined;
    try {
      holder = readFileSync(lock, 'utf8');
    } catch {
      holder = undefined;
    }
    if (holder !== mine) lost = true;
    if (lost) throw new WitnessError(`the lock ${lock} is no longer this witness's: another witness took its state over, so it cosigns nothing more`);
  };
  let trees: Map<string, WitnessedTree>;
  try {
    const stored = readState(file);
    if (stored === undefined && owner.newState === 'refused') {
      throw new WitnessError(`no witness state at ${file}, and the key was not generated now: it may have cosigned trees a lost state held, `
        + 'and from an empty state it would cosign a fork of them, two trees of one size under its key. Restore the state (or give its '
        + '--state), or start with a new key (logs and policies then name its new verifier key); --new-state starts an empty state for '
        + 'this key, which is safe only if it never cosigned');
    }
    if (stored !== undefined && owner.newState === 'required') {
      throw new WitnessError(`--new-state: the witness state ${file} exists, and is kept: start without --new-state`);
    }
    if (stored?.publicKey !== undefined && stored.publicKey !== publicKey) {
      throw new WitnessError(`the witness state ${file} was written for another key (${stored.publicKey}), not this witness's `
        + `(${publicKey}): give that key's --key, or this key's --state`);
    }
    removeEarlierTemporaries(file);
    trees = stored?.trees ?? new Map();
    // The key recorded before anything is cosigned: a new state, or one written before the key was recorded.
    if (stored?.publicKey === undefined) await writeDurably(file, aside, serialize(trees), fence);
  } catch (error) {
    release();
    throw error;
  }
  let closing = false;
  const writes = new Set<Promise<void>>();
  const write = async (origin: string, tree: WitnessedTree) => {
    fence();
    const next = new Map(trees).set(origin, tree);
    await writeDurably(file, aside, serialize(next), fence);
    // Taken over while the directory was flushed: the successor may not have seen this tree, so it is not answered.
    fence();
    // Held in memory only once it is on disk: an answer never rests on a tree a crash would forget.
    trees = next;
  };
  return {
    get: (origin) => trees.get(origin),
    put: (origin, tree) => {
      if (closing) return Promise.reject(new WitnessError('the witness is stopping: it stores, and so cosigns, nothing more'));
      const writing = write(origin, tree);
      const done = () => writes.delete(writing);
      writes.add(writing);
      writing.then(done, done);
      return writing;
    },
    close: async () => {
      closing = true;
      await Promise.allSettled(writes);
      release();
    },
  };
}
