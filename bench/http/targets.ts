/**
 * The requests the read API benchmark sends, one per public operation and variant, and the answers our server gave
 * to them: the two baselines serve exactly these bytes (the limit) or these objects (the peer).
 */

export interface Target {
  /** Key of the figure in the report, e.g. `catalogue_price_asc`. */
  name: string;
  method: 'GET' | 'POST';
  /** Path and query string. */
  url: string;
  body?: string;
}

export interface RecordedAnswer {
  target: Target;
  /** Exactly the bytes our server answered. */
  bytes: Buffer;
  /**
   * The headers it answered them with, as name/value pairs, except those Node's HTTP server writes itself
   * (`Date`, `Connection`, `Keep-Alive`, `Content-Length`): the limit sends these very headers.
   */
  headers: [string, string][];
  /** The same answer parsed, for the peer to serialize per request. */
  value: unknown;
}

export const answerKey = (method: string, url: string): string => `${method} ${url}`;

/** Every public operation of docs/api.md that reads the catalogue, with the catalogue's filters and each sort. */
export function readApiTargets(sample: { reference: string; collection: string; model: string; serial: string }): Target[] {
  const price = JSON.stringify({ collection: sample.collection, model_ref: sample.model, options: null, accessories: null });
  return [
    { name: 'catalogue', method: 'GET', url: '/api/public/catalogue' },
    { name: 'catalogue_filtered', method: 'GET', url: `/api/public/catalogue?collection=${sample.collection}&search=or&min_price=1000&max_price=100000&in_stock=true&limit=20` },
    { name: 'catalogue_price_asc', method: 'GET', url: '/api/public/catalogue?sort=price_asc' },
    { name: 'catalogue_price_desc', method: 'GET', url: '/api/public/catalogue?sort=price_desc&lang=fr' },
    { name: 'catalogue_collection', method: 'GET', url: '/api/public/catalogue?sort=collection&offset=20' },
    { name: 'detail', method: 'GET', url: `/api/public/catalogue/${sample.reference}` },
    { name: 'collections', method: 'GET', url: '/api/public/collections' },
    { name: 'options', method: 'GET', url: `/api/public/configurator/options/${sample.collection}` },
    { name: 'price', method: 'POST', url: '/api/public/configurator/price', body: price },
    { name: 'verify', method: 'GET', url: `/api/public/verify/${sample.serial}` },
  ];
}

const WRITTEN_BY_NODE = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/** Asks our server for every target once; each must answer 200, or the benchmark would measure an error path. */
export async function recordAnswers(baseUrl: string, targets: readonly Target[]): Promise<RecordedAnswer[]> {
  const answers: RecordedAnswer[] = [];
  for (const target of targets) {
    const response = await fetch(baseUrl + target.url, {
      method: target.method,
      ...(target.body === undefined ? {} : { body: target.body, headers: { 'content-type': 'application/json' } }),
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200) throw new Error(`${target.name}: ${target.method} ${target.url} answered ${response.status} ${bytes.toString()}`);
    const headers = [...response.headers].filter(([name]) => !WRITTEN_BY_NODE.has(name));
    answers.push({ target, bytes, headers, value: JSON.parse(bytes.toString()) });
  }
  return answers;
}

/** Recorded answers as JSON, for a server in another process to replay (the bytes in base64). */
export function answersToJson(answers: readonly RecordedAnswer[]): string {
  return JSON.stringify(answers.map((answer) => ({ ...answer, bytes: answer.bytes.toString('base64') })));
}

export function answersFromJson(text: string): RecordedAnswer[] {
  return (JSON.parse(text) as (Omit<RecordedAnswer, 'bytes'> & { bytes: string })[])
    .map((answer) => ({ ...answer, bytes: Buffer.from(answer.bytes, 'base64') }));
}
