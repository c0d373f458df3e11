/**
 * A catalogue file posted to the admin import, checked as every admin body is (admin-bodies.ts), but a large one off
 * the event loop: decoding 16 MiB of empty entries alone blocks a core for seconds, and with the public API in the
 * same process (`npm start`) its requests would wait, and kept-alive connections whose keep-alive timer fell due in
 * the meantime would be reset (test/reliability/bounded-errors.test.ts). A body above `IN_LOOP_CHARACTERS` is first
 * checked in a worker thread, one at a time; only a body that passes there is decoded in the loop, where a valid
 * file costs far less per byte than a pile of empty entries (test/services/import-body-check.test.ts).
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { IssueCollector } from '../../shared/read-model/public-api/validation/issue-bound.ts';
import { decodeBody } from '../../shared/read-model/public-api/validation/request-body.ts';
import { RequestValidationError, type ValidationIssue } from '../../shared/read-model/public-api/validation/validation-issue.ts';
import { CatalogueFile } from '../catalogue/catalogue-file.ts';
import { checkDocument } from './admin-bodies.ts';
import { HttpError } from './json-body.ts';

/** Bodies up to this length are checked in the loop: a few milliseconds at most. */
export const IN_LOOP_CHARACTERS = 256 * 1024;
/** The worker's heap: a 16 MiB body of empty entries decodes to about 500 MB. */
const WORKER_HEAP_MB = 2048;

const extension = extname(fileURLToPath(import.meta.url));
const workerFile = new URL(`./catalogue-check.worker${extension}`, import.meta.url);

/**
 * The worker. From the sources (`.ts`, run by tsx) it registers tsx itself: Node 20's workers do not take the
 * parent's `--import` hooks. The built service (`dist/`, `.js`) runs the file as it is.
 */
function startWorker(workerData: { text: string; contentType: string | undefined }): Worker {
  const resourceLimits = { maxOldGenerationSizeMb: WORKER_HEAP_MB };
  if (extension === '.js') return new Worker(workerFile, { workerData, resourceLimits });
  const boot = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(workerFile.href)}); })`;
  return new Worker(boot, { eval: true, workerData, resourceLimits });
}

function checkInWorker(text: string, contentType: string | undefined): Promise<ValidationIssue[] | null> {
  return new Promise((resolve, reject) => {
    const worker = startWorker({ text, contentType });
    worker.once('message', (detail: ValidationIssue[] | null) => resolve(detail));
    worker.once('error', (error: Error & { code?: string }) => {
      reject(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new HttpError(413, 'Payload Too Large: this catalogue file takes more memory to check than the import allows') : error);
    });
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`the catalogue check stopped with exit code ${code}`));
    });
  });
}

/** One check in a worker at a time: each may hold hundreds of megabytes. */
let previous: Promise<unknown> = Promise.resolve();

/** The file typed, or a 422 naming its problems (bounded, as for every body). */
export async function checkedCatalogueFile(text: string, contentType: string | undefined): Promise<CatalogueFile> {
  if (text.length > IN_LOOP_CHARACTERS) {
    const checked = previous.then(() => checkInWorker(text, contentType));
    previous = checked.catch(() => undefined);
    const detail = await checked;
    if (detail !== null) throw new RequestValidationError(IssueCollector.fromDetail(detail));
  }
  return checkDocument(CatalogueFile, decodeBody(text, contentType));
}
