/**
 * Issue 43, item 4: the repository's API reference (docs/api.md) says what the operations' schemas say. Its
 * operations part is written by `npm run docs:api` from the specs that validate requests and build the OpenAPI
 * document; a schema changed without running it leaves the file behind, and this test names the fix.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { API_REFERENCE, withOperations } from '../../scripts/api-reference.ts';
import { publicOperations } from '../../shared/read-model/public-api/operations/index.ts';

describe('the API reference (docs/api.md)', () => {
  const document = readFileSync(API_REFERENCE, 'utf8');

  it('holds the operations part as the schemas give it now (run npm run docs:api after changing one)', () => {
    expect(document === withOperations(document), 'docs/api.md is behind the schemas: run npm run docs:api').to.equal(true);
  });

  it('has a section for each public operation, under the path clients call', () => {
    const headings = [...document.matchAll(/^### (GET|POST) (\S+)$/gm)].map((match) => `${match[1]} ${match[2]}`);
    const expected = publicOperations.map((op) => `${op.method} ${op.path.replace(/:(\w+)/g, '{$1}')}`);
    expect(headings).to.include.members(expected);
  });
});
