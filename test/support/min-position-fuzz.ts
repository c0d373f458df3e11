/**
 * The seeded read-your-writes fuzz (issue 44, item 1) over a replica topology (replica-topology.ts): back-office
 * clients, each owning one serial and one watch, make admin changes (a serial's stolen/recovered flips, its watch's
 * price) and after each one read, at random replicas, with `X-Min-Position` set to the change's position: over HTTP
 * the verification, the watch detail (a cacheable answer: plain reads without the header keep older answers in the
 * replicas' caches on the way) and the status, and a share over MCP (`verify_serial`, `get_watch`). Meanwhile a
 * worker holding leases is frozen past its lease and let go on, or killed and started again. Each read is judged
 * against docs/api.md, "Read your writes": a 200 says `X-Read-Model-Position` at or past its minimum and shows the
 * client's own last change (only that client changes its serial and its watch, and it reads before changing again);
 * a refusal is the documented 503 with `Retry-After`.
 *
 * The seed draws every choice: each client's changes, prices, replicas and reads from a generator of its own, and the
 * faults (which worker, pause or kill) from another, at fixed counts of reads made. The timing of processes is not
 * seeded, so a replay makes the same choices, not the same interleaving.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { between, seededRandom } from '../../shared/random/seeded-random.ts';
import { send, type TestResponse } from './http.ts';
import { postMcp, toolCall } from './mcp-client.ts';
import type { ReplicaTopology } from './replica-topology.ts';

export interface FuzzSettings {
  seed: number;
  /** Reads with a minimum position to make, over every client. */
  reads: number;
  /** Back-office clients working at once, each on a watch of its own. */
  clients: number;
  /** Watches the clients change the price of (one each), with their price in the store the topology started from. */
  watches: readonly { reference: string; price_eur: number }[];
  /** The watch fresh serials are registered to. */
  serialReference: string;
  /** How many reads follow each change, at least and at most (drawn). */
  readsPerChange: readonly [number, number];
  /** Share of reads sent over MCP. */
  mcpShare: number;
  /** Reads between two faults (a pause, then a kill, and so on). */
  faultEvery: number;
  /** How long a worker stays frozen: past its lease (PROJECTION_LEASE_SECONDS), so that another takes its projections over. */
  pauseMs: number;
  log?: (line: string) => void;
}

export type ReadKind = 'verify' | 'detail' | 'status' | 'mcp verify_serial' | 'mcp get_watch';

export interface FuzzReport {
  seed: number;
  reads: number;
  answered: number;
  answered_by_kind: Record<string, number>;
  /** Refusals by their detail. */
  refused: Record<string, number>;
  reads_by_kind: Record<string, number>;
  changes: Record<string, number>;
  /** Plain reads (no header) that kept older answers in the caches. */
  plain_reads: number;
  /** 200s whose `X-Read-Model-Position` is below their minimum. */
  belowMinimum: string[];
  /** 200s at or past their minimum that do not show the change. */
  wrong: string[];
  /** Anything else: another status, a refusal not as documented, a failed request. */
  bad: string[];
  faults: string[];
  /** Milliseconds from sending a read to its answer. */
  answered_ms: { p50: number; p99: number; max: number };
  seconds: number;
}

/** The documented refusals of a request whose read models did not reach its minimum (docs/api.md). */
const BEHIND = {
  en: 'The answer is not yet up to date with your change; try again shortly',
  fr: 'La réponse n\'est pas encore à jour de votre modification ; réessayez dans un instant',
};
/** A verification's own refusal when its registry was not confirmed fresh (docs/api.md, "Honest answers"). */
const REGISTRY = {
  en: 'The registry cannot be checked right now; try again shortly',
  fr: 'Le registre ne peut pas être consulté pour le moment ; réessayez dans un instant',
};

type Lang = 'en' | 'fr';

/** How many times a client asks again reads refused after one change. */
const RETRIES = 2;

/** What a client wrote last: what every answer at or past its last change's position must show. */
interface Owned {
  serial: string;
  stolen: boolean;
  reference: string;
  price: number;
}

/** One read's verdict. */
type Verdict =
  | { kind: 'answered' }
  | { kind: 'refused'; detail: string; retryAfter: number }
  | { kind: 'below' | 'wrong' | 'bad'; why: string };

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** A refusal as documented: 503, `Retry-After` in whole seconds, one of the details allowed. */
function refusal(status: number, retryAfter: string | undefined, detail: unknown, allowed: readonly string[]): Verdict {
  if (status !== 503 || !/^[1-9]\d*$/.test(retryAfter ?? '') || typeof detail !== 'string' || !allowed.includes(detail)) {
    return { kind: 'bad', why: `status ${status}, Retry-After ${retryAfter}, detail ${JSON.stringify(detail)}` };
  }
  return { kind: 'refused', detail, retryAfter: Number(retryAfter) };
}

/** What the body of a read of `kind` must show of the client's own state; undefined when it does. */
function shows(kind: ReadKind, body: Record<string, unknown>, owned: Owned, minimum: number): string | undefined {
  if (kind === 'verify' || kind === 'mcp verify_serial') {
    const expected = owned.stolen ? 'STOLEN' : 'AUTHENTIC';
    return body['verification_status'] === expected ? undefined : `${owned.serial}: ${String(body['verification_status'])}, not ${expected}`;
  }
  if (kind === 'detail' || kind === 'mcp get_watch') {
    return body['price_eur'] === owned.price ? undefined : `${owned.reference}: price ${String(body['price_eur'])}, not ${owned.price}`;
  }
  const position = (body['read_model'] as { position?: number } | undefined)?.position;
  return typeof position === 'number' && position >= minimum ? undefined : `status read_model.position ${position} below ${minimum}`;
}

const pathOf = (kind: ReadKind, owned: Owned, lang: Lang): string => {
  const path = kind === 'verify' ? `/api/public/verify/${owned.serial}` : kind === 'detail' ? `/api/public/catalogue/${owned.reference}` : '/api/public/status';
  return `${path}?lang=${lang}`;
};

/** Judges an answer over HTTP to a read needing `minimum`. */
function judgeHttp(kind: ReadKind, answer: TestResponse, owned: Owned, minimum: number, lang: Lang): Verdict {
  if (answer.status !== 200) {
    const allowed = kind === 'verify' ? [BEHIND[lang], REGISTRY[lang]] : [BEHIND[lang]];
    return refusal(answer.status, answer.headers['retry-after'] as string | undefined, JSON.parse(answer.text || '{}').detail, allowed);
  }
  const position = Number(answer.headers['x-read-model-position']);
  if (!(position >= minimum)) return { kind: 'below', why: `X-Read-Model-Position ${answer.headers['x-read-model-position']} below ${minimum}` };
  const wrong = shows(kind, answer.json(), owned, minimum);
  return wrong === undefined ? { kind: 'answered' } : { kind: 'wrong', why: wrong };
}

/** Judges a `tools/call` answer: a result at or past `minimum`, or a refusal as an `isError` result with the detail. */
function judgeMcp(kind: ReadKind, answer: TestResponse, owned: Owned, minimum: number): Verdict {
  if (answer.status !== 200) return { kind: 'bad', why: `POST /mcp answered ${answer.status}: ${answer.text.slice(0, 200)}` };
  const { result } = answer.json<{ result?: { isError?: boolean; content?: { text: string }[]; structuredContent?: Record<string, unknown> } }>();
  if (result === undefined) return { kind: 'bad', why: `no result: ${answer.text.slice(0, 200)}` };
  if (result.isError === true) {
    const detail = JSON.parse(result.content?.[0]?.text ?? '{}').detail;
    const allowed = kind === 'mcp verify_serial' ? [BEHIND.en, REGISTRY.en] : [BEHIND.en];
    // The POST's HTTP answer is a 200 carrying the result: the wait asked of HTTP clients (docs/api.md) is one second.
    return typeof detail === 'string' && allowed.includes(detail) ? { kind: 'refused', detail, retryAfter: 1 } : { kind: 'bad', why: `isError ${JSON.stringify(detail)}` };
  }
  const position = Number(answer.headers['x-read-model-position']);
  if (!(position >= minimum)) return { kind: 'below', why: `X-Read-Model-Position ${answer.headers['x-read-model-position']} below ${minimum}` };
  const wrong = shows(kind, result.structuredContent ?? {}, owned, minimum);
  return wrong === undefined ? { kind: 'answered' } : { kind: 'wrong', why: wrong };
}

const summary = (values: readonly number[]) => ({
  p50: Math.round(percentile(values, 50)), p99: Math.round(percentile(values, 99)), max: Math.round(Math.max(0, ...values)),
});

export async function runMinPositionFuzz(topology: ReplicaTopology, settings: FuzzSettings): Promise<FuzzReport> {
  const log = settings.log ?? (() => {});
  const started = performance.now();
  const report: FuzzReport = {
    seed: settings.seed, reads: 0, answered: 0, answered_by_kind: {}, refused: {}, reads_by_kind: {}, changes: {}, plain_reads: 0,
    belowMinimum: [], wrong: [], bad: [], faults: [], answered_ms: { p50: 0, p99: 0, max: 0 }, seconds: 0,
  };
  const answeredMs: number[] = [];
  const { replicas } = topology;
  const count = (table: Record<string, number>, key: string) => { table[key] = (table[key] ?? 0) + 1; };
  let done = false;

  /** One read; the seconds it was asked to wait when it was refused, else undefined. */
  async function read(random: () => number, kind: ReadKind, owned: Owned, minimum: number, what: string): Promise<number | undefined> {
    const url = replicas[between(random, 0, replicas.length - 1)]!;
    const lang: Lang = random() < 0.5 ? 'en' : 'fr';
    const sent = performance.now();
    let verdict: Verdict;
    try {
      if (kind === 'mcp verify_serial' || kind === 'mcp get_watch') {
        const args = kind === 'mcp verify_serial' ? { serial: owned.serial } : { reference: owned.reference };
        const answer = await postMcp(url, toolCall(kind.slice(4), args, between(random, 1, 1_000_000)), { headers: { 'x-min-position': String(minimum) } });
        verdict = judgeMcp(kind, answer, owned, minimum);
      } else {
        const answer = await send(url, pathOf(kind, owned, lang), { headers: { 'x-min-position': String(minimum) } });
        verdict = judgeHttp(kind, answer, owned, minimum, lang);
      }
    } catch (error) {
      verdict = { kind: 'bad', why: `request failed: ${(error as Error).message}` };
    }
    report.reads += 1;
    count(report.reads_by_kind, kind);
    const where = `${kind} at ${url} with X-Min-Position ${minimum} after ${what}`;
    if (verdict.kind === 'answered') {
      report.answered += 1;
      count(report.answered_by_kind, kind);
      answeredMs.push(performance.now() - sent);
    } else if (verdict.kind === 'refused') {
      count(report.refused, verdict.detail);
    } else {
      (verdict.kind === 'below' ? report.belowMinimum : verdict.kind === 'wrong' ? report.wrong : report.bad).push(`${where}: ${verdict.why}`);
    }
    return verdict.kind === 'refused' ? verdict.retryAfter : undefined;
  }

  const kinds: ReadKind[] = ['verify', 'detail', 'status'];
  const pickKind = (random: () => number): ReadKind => (random() < settings.mcpShare
    ? (random() < 0.5 ? 'mcp verify_serial' : 'mcp get_watch')
    : kinds[between(random, 0, kinds.length - 1)]!);

  /**
   * Reads after a change at `position`, several (a change costs the projectors far more than a read costs a
   * replica), all at once or one after the other; those refused are asked again after the wait the refusal asked
   * for, twice at most, as a client following docs/api.md does (and one that did not would flood a lagging store).
   */
  async function readsAfter(random: () => number, owned: Owned, position: number, what: string): Promise<void> {
    let pending = Array.from({ length: between(random, ...settings.readsPerChange) }, () => pickKind(random));
    for (let attempt = 0; pending.length > 0 && attempt <= RETRIES; attempt += 1) {
      const waits: number[] = [];
      if (random() < 0.5) {
        const asked = await Promise.all(pending.map((kind) => read(random, kind, owned, position, what)));
        waits.push(...asked.flatMap((wait) => (wait === undefined ? [] : [wait])));
        pending = pending.filter((_, i) => asked[i] !== undefined);
      } else {
        // One after the other until one is refused: that one and the rest are asked again after the wait.
        const left = [...pending];
        pending = [];
        while (left.length > 0) {
          const wait = await read(random, left[0]!, owned, position, what);
          if (wait !== undefined) {
            waits.push(wait);
            pending = left;
            break;
          }
          left.shift();
        }
      }
      if (pending.length > 0 && attempt < RETRIES) await sleep(1_000 * Math.max(...waits));
    }
  }

  /** A plain read without the header, so that a replica keeps an answer from before the next change. */
  async function plainRead(random: () => number, owned: Owned): Promise<void> {
    const path = random() < 0.5 ? `/api/public/catalogue/${owned.reference}` : `/api/public/verify/${owned.serial}`;
    await send(replicas[between(random, 0, replicas.length - 1)]!, path).catch(() => undefined);
    report.plain_reads += 1;
  }

  async function client(index: number): Promise<void> {
    const random = seededRandom(settings.seed + 7_919 * (index + 1));
    const { reference, price_eur: price } = settings.watches[index]!;
    const owned: Owned = { serial: `FUZZ-${settings.seed}-${index}`, stolen: false, reference, price };
    const change = async (kind: string, method: string, path: string, body?: unknown) => {
      const position = await topology.change(method, path, body);
      count(report.changes, kind);
      await readsAfter(random, owned, position, `${kind} (${owned.serial} ${owned.stolen ? 'stolen' : 'authentic'}, ${owned.reference} at ${owned.price})`);
    };
    const newPrice = async () => {
      // Another price than the one it has, in euros and cents.
      let price: number;
      do price = between(random, 100_000, 9_000_000) / 100; while (price === owned.price);
      owned.price = price;
      await change('price', 'PUT', `/admin/watches/${reference}/price`, { price_eur: price });
    };
    await change('registration', 'POST', '/admin/serials', { serial: owned.serial, reference: settings.serialReference, year: 2024 });
    await newPrice();
    while (report.reads < settings.reads && !done) {
      if (random() < 0.3) await plainRead(random, owned);
      if (random() < 0.5) {
        owned.stolen = !owned.stolen;
        await change(owned.stolen ? 'stolen' : 'recovered', 'POST', `/admin/serials/${owned.serial}/${owned.stolen ? 'stolen' : 'recovered'}`);
      } else {
        await newPrice();
      }
    }
  }

  const faultRandom = seededRandom(settings.seed);
  /** A worker holding leases (any, if none holds one), drawn by the seed. */
  async function victim(): Promise<{ index: number; leases: string[] }> {
    const held = await Promise.all(topology.workers.map((_, index) => topology.leasesOf(index)));
    const holders = held.flatMap((leases, index) => (leases.length > 0 ? [index] : []));
    const pool = holders.length > 0 ? holders : topology.workers.map((_, index) => index);
    const index = pool[between(faultRandom, 0, pool.length - 1)]!;
    return { index, leases: held[index]! };
  }

  async function faults(): Promise<void> {
    let next = settings.faultEvery;
    let pause = faultRandom() < 0.5;
    // No fault begins once the reads are made: the run would only wait for it.
    while (!done && next < settings.reads) {
      if (report.reads < next) {
        await sleep(20);
        continue;
      }
      const { index, leases } = await victim();
      const at = `after ${report.reads} reads, ${((performance.now() - started) / 1000).toFixed(1)} s in`;
      const pid = topology.workers[index]!.process.child.pid;
      if (pause) {
        topology.pause(index);
        report.faults.push(`worker ${index} (pid ${pid}, leases: ${leases.join(', ') || 'none'}) frozen ${at} for ${settings.pauseMs} ms`);
        await sleep(settings.pauseMs);
        topology.resume(index);
      } else {
        const killed = performance.now();
        await topology.restart(index);
        report.faults.push(`worker ${index} (pid ${pid}, leases: ${leases.join(', ') || 'none'}) killed ${at}, started again in ${Math.round(performance.now() - killed)} ms`);
      }
      log(`      ${report.faults.at(-1)}`);
      pause = !pause;
      next += settings.faultEvery;
    }
  }

  const faulting = faults();
  try {
    await Promise.all(Array.from({ length: settings.clients }, (_, index) => client(index)));
  } finally {
    done = true;
    await faulting;
    topology.workers.forEach((worker, index) => { if (worker.paused) topology.resume(index); });
  }
  report.answered_ms = summary(answeredMs);
  report.seconds = Math.round((performance.now() - started) / 100) / 10;
  return report;
}
