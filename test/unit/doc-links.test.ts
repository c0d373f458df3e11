/**
 * Issue 29, item 4: the README's links resolve, and so do those of the other documents (ARCHITECTURE.md, docs/, the
 * tests' and benchmarks' notes). Each relative link names a file of the repository (relative to the document's folder), and each `#anchor` a heading of the file it points into, slugged as GitHub does (lower case,
 * punctuation dropped, spaces as hyphens). On main at 204df55 the README pointed to an ARCHITECTURE.md that the
 * repository did not have.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCUMENTS = ['README.md', 'ARCHITECTURE.md', 'docs/api.md', 'docs/audit.md', 'test/README.md', 'bench/README.md'];

/** GitHub's heading anchors of a markdown file (outside code blocks). */
function anchorsOf(file: string): Set<string> {
  const text = readFileSync(join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => match[1]!.trim().toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-')));
}

describe('documentation links', () => {
  for (const document of DOCUMENTS) {
    it(`${document}: every relative link names a file of the repository and an existing heading`, () => {
      expect(existsSync(join(ROOT, document)), document).to.equal(true);
      const text = readFileSync(join(ROOT, document), 'utf8').replace(/```[\s\S]*?```/g, '');
      const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!).filter((target) => !/^[a-z]+:/.test(target));
      expect(links, 'links found').not.to.be.empty;
      const broken = links.filter((target) => {
        const [path, anchor] = target.split('#') as [string, string | undefined];
        // Relative to the document's own folder, as GitHub reads it; `/x` from the repository's root.
        const file = path === '' ? document : path.startsWith('/') ? path.slice(1) : join(dirname(document), path);
        if (!existsSync(join(ROOT, file))) return true;
        return anchor !== undefined && !anchorsOf(file).has(anchor);
      });
      expect(broken).to.deep.equal([]);
    });
  }
});
