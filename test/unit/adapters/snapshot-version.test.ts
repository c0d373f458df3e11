/**
 * The read-model snapshot's version hashes the source of the folders the projections are made of: it must cover
 * every folder of shared/ they import, directly or not, or a change there would serve a snapshot the new code
 * would not build. Computed here by following the import statements from every module of shared/read-model/projections.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SOURCE_FOLDERS, projectionsVersion } from '../../../shared/adapters/read-model-snapshot/snapshot-version.ts';

const SHARED = fileURLToPath(new URL('../../../shared/', import.meta.url));

/** The folders of shared/ reached by the relative imports of `entries`, transitively (read-model/ by its subfolders). */
function importedFolders(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const pending = [...entries];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const [, target] of readFileSync(file, 'utf8').matchAll(/from '(\.{1,2}\/[^']+)'/g)) pending.push(resolve(dirname(file), target!));
  }
  return new Set([...seen].map((file) => {
    const [top, sub] = relative(SHARED, file).split('/');
    return top === 'read-model' ? `${top}/${sub}` : top!;
  }));
}

describe('read-model snapshot version', () => {
  it('hashes every folder of shared/ the projections import, and no other', () => {
    const projections = readdirSync(`${SHARED}read-model/projections`).filter((name) => name.endsWith('.ts'));
    expect(projections).to.include('index.ts');
    const folders = importedFolders(projections.map((name) => `${SHARED}read-model/projections/${name}`));
    expect(folders.size).to.be.greaterThan(1);
    expect([...folders].sort()).to.deep.equal([...SOURCE_FOLDERS].sort());
  });

  it('is a hash, the same at every call', () => {
    expect(projectionsVersion()).to.match(/^[0-9a-f]{32}$/).and.to.equal(projectionsVersion());
  });
});
