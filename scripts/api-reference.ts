/**
 * `npm run docs:api`: writes the operations part of the repository's API reference (docs/api.md, between its
 * `generated: operations` markers) from the operations' own specs, the typebox schemas that validate requests and
 * build the OpenAPI document, so the reference cannot drift from them. `--check` writes nothing and exits 1 when the
 * file is not in step (test/unit/api-reference.test.ts runs the same comparison).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { operationReference } from '../read-api/discovery/llms-full-txt.ts';
import { publicOperations } from '../shared/read-model/public-api/operations/index.ts';

export const API_REFERENCE = fileURLToPath(new URL('../docs/api.md', import.meta.url));
const BEGIN = '<!-- generated: operations -->';
const END = '<!-- end of generated: operations -->';
/** The examples' origin: `npm start`'s, so that each example runs against a service started with the defaults. */
const EXAMPLE_ORIGIN = 'http://localhost:3000';

/** `document` with its generated part made anew; throws when the markers are missing. */
export function withOperations(document: string): string {
  const start = document.indexOf(BEGIN);
  const end = document.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/api.md lacks the markers ${BEGIN} ... ${END}`);
  const generated = publicOperations.flatMap((op) => operationReference(op, EXAMPLE_ORIGIN, '###')).join('\n');
  return `${document.slice(0, start + BEGIN.length)}\n${generated}\n${document.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const current = readFileSync(API_REFERENCE, 'utf8');
  const next = withOperations(current);
  if (process.argv.includes('--check')) {
    if (next !== current) {
      console.error('docs/api.md is not in step with the operations\' schemas: run npm run docs:api');
      process.exit(1);
    }
  } else if (next !== current) {
    writeFileSync(API_REFERENCE, next);
    console.log('docs/api.md: the operations written anew from their schemas');
  }
}
