/**
 * A relative DATA_DIR is read from the project root, the folder of watchcat's package.json
 * (`shared/config/project-data-dir.ts`). Folders built here in a temporary directory, the expected root of each
 * named by hand.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { loadConfig } from '../../../shared/config/config.ts';
import { projectRoot, withProjectDataDir } from '../../../shared/config/project-data-dir.ts';

describe('the project root and DATA_DIR', () => {
  let top: string;
  beforeEach(() => {
    top = realpathSync(mkdtempSync(join(tmpdir(), 'watchcat-project-root-')));
  });
  afterEach(() => rmSync(top, { recursive: true, force: true }));

  it('is the nearest folder above whose package.json is watchcat\'s, past another package\'s', () => {
    mkdirSync(join(top, 'app', 'pkg', 'src', 'deep'), { recursive: true });
    writeFileSync(join(top, 'app', 'package.json'), JSON.stringify({ name: 'watchcat' }));
    writeFileSync(join(top, 'app', 'pkg', 'package.json'), JSON.stringify({ name: 'other' }));
    writeFileSync(join(top, 'app', 'pkg', 'src', 'package.json'), JSON.stringify({}));
    expect(projectRoot(join(top, 'app', 'pkg', 'src', 'deep'))).to.equal(join(top, 'app'));
    expect(projectRoot(join(top, 'app'))).to.equal(join(top, 'app'));
  });

  it('is the shell\'s folder when no folder above holds watchcat\'s package.json', () => {
    mkdirSync(join(top, 'a', 'b'), { recursive: true });
    writeFileSync(join(top, 'a', 'package.json'), JSON.stringify({ name: 'not-watchcat' }));
    expect(projectRoot(join(top, 'a', 'b'))).to.equal(process.cwd());
  });

  it('is by default the checkout holding the sources (three folders above this test)', () => {
    expect(projectRoot()).to.equal(resolve(dirname(fileURLToPath(import.meta.url)), '../../..'));
  });

  it('makes a relative DATA_DIR absolute from the root and leaves an absolute one and the other settings as they are', () => {
    const config = loadConfig({ DATA_DIR: 'stores/../data', PORT: '8123' });
    const placed = withProjectDataDir(config, '/opt/watchcat');
    expect(placed.DATA_DIR).to.equal('/opt/watchcat/data');
    expect(placed.PORT).to.equal(8123);
    expect(config.DATA_DIR).to.equal('stores/../data');
    expect(withProjectDataDir(loadConfig({}), '/opt/watchcat').DATA_DIR).to.equal('/opt/watchcat/data');
    const absolute = loadConfig({ DATA_DIR: '/var/lib/watchcat' });
    expect(withProjectDataDir(absolute, '/opt/watchcat')).to.deep.equal(absolute);
  });
});
