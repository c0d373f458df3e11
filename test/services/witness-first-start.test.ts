/**
 * A witness's first start, durable (services/witness/durable-directory.ts): the directories it creates for its key
 * and its state are flushed into their parents, and the key it generates is flushed, so that a power loss just after
 * cannot take back the key, or the state that records it, while logs already name that key. A power loss cannot be
 * staged here: the tests see the flushes made, through a stub of `fs.promises.open` that records each `sync()`.
 */
import fs, { mkdtempSync, rmSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadWitnessKey } from '../../services/witness/witness-key.ts';
import { openWitnessState } from '../../services/witness/witness-state-file.ts';

describe('witness: its first start, durable', () => {
  let dir: string;
  let synced: string[];
  const open = fs.promises.open;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'watchcat-witness-first-'));
    synced = [];
    fs.promises.open = (async (path: fs.PathLike, ...rest: unknown[]) => {
      const handle = await (open as (...args: unknown[]) => Promise<fs.promises.FileHandle>)(path, ...rest);
      const sync = handle.sync.bind(handle);
      handle.sync = () => {
        synced.push(String(path));
        return sync();
      };
      return handle;
    }) as typeof fs.promises.open;
    syncBuiltinESMExports();
  });
  afterEach(() => {
    fs.promises.open = open;
    syncBuiltinESMExports();
    rmSync(dir, { recursive: true, force: true });
  });

  it('flushes each directory it creates for its state into its parent', async () => {
    const state = await openWitnessState(join(dir, 'data', 'witness', 'state.json'), { key: generateKeyPairSync('ed25519').privateKey, newState: 'allowed' });
    await state.close();
    expect(synced).to.include.members([dir, join(dir, 'data'), join(dir, 'data', 'witness')]);
  });

  it('flushes the key it generates, and each directory it creates for it into its parent', async () => {
    await loadWitnessKey(join(dir, 'data', 'witness', 'key.pem'));
    expect(synced).to.include.members([dir, join(dir, 'data'), join(dir, 'data', 'witness'), join(dir, 'data', 'witness', 'key.pem')]);
  });
});
