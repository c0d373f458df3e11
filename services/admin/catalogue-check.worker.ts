/**
 * The check of a large catalogue body, run in a worker thread by catalogue-check.ts: decoding and walking a 16 MiB
 * body takes seconds of one core, which the public API must not wait for when both run in one process (`npm start`).
 * Posts `null` for a body that passes, or the bounded `detail` of its 422.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { decodeBody } from '../../shared/read-model/public-api/validation/request-body.ts';
import { RequestValidationError } from '../../shared/read-model/public-api/validation/validation-issue.ts';
import { CatalogueFile } from '../catalogue/catalogue-file.ts';
import { checkDocument } from './admin-bodies.ts';

const { text, contentType } = workerData as { text: string; contentType: string | undefined };
try {
  await checkDocument(CatalogueFile, decodeBody(text, contentType));
  parentPort!.postMessage(null);
} catch (error) {
  if (!(error instanceof RequestValidationError)) throw error;
  parentPort!.postMessage(error.issues);
}
