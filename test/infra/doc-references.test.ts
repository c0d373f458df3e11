/**
 * The infra files send the operator to the documents by section: `(README.md, At scale)`, `docs/api.md, "Signed
 * answers"`. An operator who follows one finds the section: each names a heading (or a bold item) of that file.
 * On main at 7ad5f72 the compose file's refusals sent whoever left out a signing key to README.md's "Signed answers"
 * and "Transparency log", which are sections of docs/api.md, and an alert rule cited a document outside the
 * repository where docs/api.md ("Honest answers") holds the rule.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Headings and bold items (`**Receipts.**`) of a markdown file of the repository, outside code blocks, lower case. */
function sectionsOf(file: string): string[] {
  if (!existsSync(join(ROOT, file))) return [];
  const text = readFileSync(join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/^#{1,6} (.+)$|\*\*([^*]+)\*\*/gm)].map((match) => (match[1] ?? match[2]!).trim().toLowerCase());
}

/** `FILE's "Section"`, `FILE, "Section"`, `FILE ("Section")`, `(FILE, Section)`. */
const REFERENCE = /\b((?:docs\/)?[A-Za-z]+\.md)(?:'s|,| \()\s*(?:"([^"]+)"|([A-Z][^)"\n]*)\))/g;

describe('infra files: sections they name in the documents', () => {
  const files = readdirSync(join(ROOT, 'infra'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.endsWith('.json'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));

  it('names only sections that the document has', () => {
    const references = files.flatMap((file) => [...readFileSync(join(ROOT, file), 'utf8').matchAll(REFERENCE)]
      .map((match) => ({ file, document: match[1]!, section: (match[2] ?? match[3]!).trim() })));
    expect(references.length, 'references found').to.be.greaterThan(5);
    const missing = references.filter(({ document, section }) =>
      !sectionsOf(document).some((known) => known.startsWith(section.toLowerCase())));
    expect(missing).to.deep.equal([]);
  });
});
