/**
 * The layering of ARCHITECTURE.md ("Layout"), checked with dependency-cruiser against .dependency-cruiser.cjs: the
 * sides (read-api, projector, services) use shared and never each other, shared uses none of them, production code
 * uses no test or bench code, and no module cycle exists. A small tree with each kind of forbidden import shows the
 * rules bite, so a rule that stopped matching would fail here rather than pass in silence.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Violation { rule: { name: string }; from: string; to: string }

/** dependency-cruiser's violations over `paths`, read from `cwd` (the rules' paths are relative to it). */
function violations(cwd: string, paths: string[]): Promise<Violation[]> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [DEPCRUISE, ...paths, '--config', CONFIG, '--output-type', 'json'], { cwd, maxBuffer: 64 * 2 ** 20 }, (error, stdout, stderr) => {
      // It exits non-zero when it finds violations: the JSON says which.
      if (!stdout) return reject(error ?? new Error(stderr));
      resolve((JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations);
    });
  });
}

describe('architecture: folders depend downward only', function () {
  this.timeout(60_000);

  it('holds for the whole tree: no side imports another, shared imports no side, production imports no test', async () => {
    const found = await violations(ROOT, ['main.ts', 'all-in-one.ts', 'shared', 'services', 'projector', 'read-api']);
    expect(found.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).to.deep.equal([]);
  });

  it('catches each kind of forbidden import in a tree made to break them', async () => {
    const tree = mkdtempSync(join(tmpdir(), 'watchcat-layers-'));
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(tree, path)), { recursive: true });
      writeFileSync(join(tree, path), text);
    };
    try {
      write('read-api/answer.ts', "export const answer = 1;\n");
      write('projector/project.ts', "export const project = 2;\n");
      write('services/audit.ts', "import { answer } from '../read-api/answer.ts';\nexport const audit = answer;\n");
      write('shared/helper.ts', "import { project } from '../projector/project.ts';\nexport const helper = project;\n");
      write('test/fixture.ts', "export const fixture = 3;\n");
      write('shared/uses-test.ts', "import { fixture } from '../test/fixture.ts';\nexport const used = fixture;\n");
      write('shared/a.ts', "import { b } from './b.ts';\nexport const a = () => b;\n");
      write('shared/b.ts', "import { a } from './a.ts';\nexport const b = () => a;\n");
      const found = await violations(tree, ['shared', 'services', 'projector', 'read-api']);
      expect(found.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).to.have.members([
        'services-uses-no-other-side: services/audit.ts -> read-api/answer.ts',
        'shared-uses-no-side: shared/helper.ts -> projector/project.ts',
        'production-uses-no-test-or-bench: shared/uses-test.ts -> test/fixture.ts',
        'no-cycles: shared/a.ts -> shared/b.ts', // a cycle is named once, from the first module of it
      ]);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });
});
