/**
 * The file `watchcat export --out FILE` writes (services/audit/line-file.ts): every line, in order, in UTF-8 (the
 * hashes cover the UTF-8 bytes of data and metadata, shared/adapters/sqlite/event-hash.ts), each ended by a newline,
 * and a writer that waits for the disk rather than holding the whole history in memory.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { lineFile } from '../../../services/audit/line-file.ts';

describe('line file', () => {
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'line-file-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes every line in UTF-8, past the stream\'s buffer (waiting for it to drain)', async function () {
    this.timeout(5_000);
    const file = join(dir, 'out.ndjson');
    const lines = Array.from({ length: 200 }, (_, i) => `{"n":${i},"name":"Régate ${'é'.repeat(500)}"}`);
    const sink = lineFile(file);
    for (const line of lines) await sink.write(line);
    await sink.end();
    expect(readFileSync(file).equals(Buffer.from(lines.map((line) => `${line}\n`).join(''), 'utf8'))).to.equal(true);
  });
});
