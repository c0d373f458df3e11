/**
 * The seeded, bounded, randomized test of the projection guarantees (issue 20, "How it is shown"): a history of
 * catalogue, price, withdrawal and theft events (large-history.ts), and events of a newer version of the service
 * (a field or a type this one does not know), appended in random chunks while two or three
 * projector workers share one read store, and in random interleavings a worker is paused past its lease, a worker
 * is killed mid-batch (and replaced), the store (and Redis, on the BullMQ variant) goes down and comes back for the
 * workers and the reader alike (a partition), and rebuilds run in the middle, some paused at their switch.
 *
 * A reader looks after every step (and at every write of a rebuild, the steps of a switch included): no
 * projection's position may go backwards, and every serial is verified as the read API verifies (one reading, its
 * stamp, or a refusal): an answer given must be the serial's status at some position from its stamp to the head, so
 * neither a stamp ahead of its data nor a laundered theft goes unseen. Once the faults end, the workers alone (no restart)
 * must bring every read model to what a clean rebuild of the history gives.
 *
 * Every choice is drawn from one seed; the same seed replays the same run of choices.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { EventStore, NewEvent } from '../../shared/ports/event-store.ts';
import type { JobQueue } from '../../shared/ports/job-queue.ts';
import { GENERATIONS_ID, type ReadStore, type StoredDoc } from '../../shared/ports/read-store.ts';
import { answerInSnapshot, type Answerer, type ReadingEnv } from '../../shared/read-model/public-api/answer-policy.ts';
import { readSnapshotStates } from '../../shared/read-model/projections/projection-states.ts';
import { startReadModelClock, type PolledReadModelClock } from '../../shared/read-model/public-api/read-model-clock.ts';
import type { ValidRequest } from '../../shared/read-model/public-api/validation/request-validator.ts';
import { verifyOperation } from '../../shared/read-model/public-api/operations/verify.operation.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { DEFAULT_LEASE_TTL_MS } from '../../shared/read-model/projections/lease.ts';
import { isReleased } from '../../shared/read-model/projections/lease-watch.ts';
import { leaseId, readControlDocs, type LeaseDoc } from '../../shared/read-model/projections/control-docs.ts';
import { PROJECTION_NAMES } from '../../shared/read-model/projections/index.ts';
import { between, seededRandom } from '../../shared/random/seeded-random.ts';
import { appendAll } from '../projector/support/history.ts';
import type { NewerEvent } from './newer-writer.ts';
import { controlledReadStore, gate, isRead, type Gate } from './controlled-read-store.ts';
import { largeHistory } from './large-history.ts';
import { cleanRebuildView, fakeClock, positionsSeen, readersView, simulatedWorker, type SimulatedWorker } from './simulated-workers.ts';

export interface FuzzSettings {
  seed: number;
  /** Events of the history appended over the run. */
  events: number;
  steps: number;
  workers: number;
  /** How long the workers get, once the faults end, to reach the head by themselves. */
  settleMs: number;
  /** A queue per worker (default: each its own in-process queue); BullMQ ones share one Redis. */
  queue?: () => JobQueue;
  /** What else an outage cuts off and brings back (Redis, on the BullMQ variant). */
  outage?: { begin(): Promise<void>; end(): Promise<void> };
  /**
   * A newer version of the service appending to the same event store (test/support/newer-writer.ts): events this
   * version's strict writer refuses and its tolerant reader projects (a new optional field, a new event type).
   * Returns the position of the last one. Without it, no such event is drawn.
   */
  newerWriter?: (stream: string, events: NewerEvent[]) => number;
}

export interface FuzzReport {
  /** Actions taken, by kind. */
  actions: Record<string, number>;
  /** What broke a guarantee during the run (empty when all held). */
  violations: string[];
  /** The read models after the run and what a clean rebuild gives (compare them). */
  settled: Record<string, StoredDoc[]>;
  rebuilt: Record<string, StoredDoc[]>;
}

interface SerialChange { position: number; stolen: boolean }

const STEP_TURNS = 3;
const STEP_LEASE_MS = 2_000;
/** Real time without any projection moving, while settling, after which lease time is moved on. */
const STALL_MS = 1_000;

export async function runProjectionFuzz(eventStore: EventStore, shared: ReadStore, settings: FuzzSettings): Promise<FuzzReport> {
  const random = seededRandom(settings.seed);
  const history = largeHistory(settings.seed, settings.events);
  const actions: Record<string, number> = {};
  const count = (action: string) => { actions[action] = (actions[action] ?? 0) + 1; };
  const violations: string[] = [];
  const serials = new Map<string, SerialChange[]>();
  const lastSeen = new Map<string, number>();
  const reader = controlledReadStore(shared);
  // Fresh whatever the lease time the steps move on: freshness refusals are the clock's own tests' business.
  const answers = await readerAnswers(reader.store);
  // Store calls answer at once in memory: a seeded share of them waits a little, so that workers, rebuilds and
  // appends interleave call by call, as they do over a network.
  // Drawn from a stream of their own: how many calls there are depends on timing, the actions must not.
  const delays = seededRandom(settings.seed ^ 0x5bd1e995);
  const jitter = (control: ReturnType<typeof controlledReadStore>) => control.intercept({
    method: /.*/, run: async () => { if (delays() < 0.3) await sleep(between(delays, 0, 2)); },
  });
  // Lease time moves two seconds a step: a worker paused for more than five steps is paused past its lease.
  const clock = fakeClock();
  // Each worker's lease owner id is known, so that the settling below can tell a dead worker's lease from a live one's.
  const owners = new Map<SimulatedWorker, string>();
  const newWorker = (): SimulatedWorker => {
    const owner = `fuzz-worker-${owners.size + 1}`;
    const worker = simulatedWorker(eventStore, shared, {
      batchSize: between(random, 1, 40), policy: { attempts: 5, backoffMs: 2 }, pollIntervalMs: 25, clock,
      ...(settings.queue ? { queue: settings.queue() } : {}), extra: { owner },
    });
    owners.set(worker, owner);
    jitter(worker.control);
    worker.projector.start();
    return worker;
  };
  const workers = Array.from({ length: settings.workers }, newWorker);
  const retired: SimulatedWorker[] = [];
  // A worker marked to be killed lives on until its next write: an outage cuts it off and its end heals it too, as
  // for any process (left down, it would hold its BullMQ job for ever, which no real outage does).
  // The reader is one of them: a partition cuts the API process off too, which must then refuse, never guess.
  const everyProcess = () => [...workers, ...retired].map((w) => w.control).concat(rebuilders, reader);
  const paused = new Map<SimulatedWorker, { gate: Gate; until: number }>();
  /** Rebuilds held at their switch, until a step. */
  const heldSwitches: { gate: Gate; until: number }[] = [];
  let current = 0;
  let outageUntil = -1;
  let rebuilding: Promise<unknown> | undefined;
  const rebuilders: ReturnType<typeof controlledReadStore>[] = [];
  let next = 0;
  let head = 0;

  const append = async (events: NewEvent[]) => {
    for (const event of events) {
      head = await appendAll(eventStore, [event]);
      const serial = (event.data as { serial?: string }).serial;
      if (event.type === 'SerialReportedStolen' || event.type === 'SerialRecovered') {
        serials.get(serial!)!.push({ position: head, stolen: event.type === 'SerialReportedStolen' });
      } else if (event.type === 'SerialRegistered') {
        serials.set(serial!, [{ position: head, stolen: false }]);
      }
    }
  };

  const look = async (step: number) => {
    // Looks overlap (a rebuild's own writes start some): a reading is held to those that ended before it was sent,
    // not to one sent earlier that ended later with less, as a process's reads, one after another, never could.
    const floor = new Map(lastSeen);
    // The store may be down for readers too: then only what they answer is looked at.
    const positions = await positionsSeen(reader.store).catch(() => new Map<string, number>());
    for (const [name, position] of positions) {
      const before = floor.get(name) ?? 0;
      const back = `${name} went back from position ${before} to ${position}`;
      // Once per drop: the reader keeps what it saw before, so later looks would repeat it.
      if (position < before && !violations.some((v) => v.endsWith(back))) violations.push(`step ${step}: ${back}`);
      lastSeen.set(name, Math.max(lastSeen.get(name) ?? 0, position));
    }
    // Answered as the read API answers (shared/read-model/public-api/answer-policy.ts): from one reading, stamped from it, or refused.
    await answers.clock.refresh().catch(() => undefined);
    for (const [serial, changes] of serials) {
      const asked = await answers.verify(verifyOperation, { query: { lang: 'en' }, path: { serial }, header: {} } as unknown as ValidRequest).catch(() => undefined);
      // A refusal (the store down, the registry not fresh) is an honest answer; so is a failure the API maps to one.
      if (asked === undefined || asked.stamp === undefined) continue;
      const status = (asked.answer.body as { verification_status?: string }).verification_status;
      const stamped = asked.stamp.behindAt ?? asked.stamp.position;
      // The data under a stamp is at least as new as the stamp: its status is the serial's at some position from
      // the stamp to the head. Any other means the stamp ran ahead of its data, or the data is wrong.
      const truthful = statusesFrom(changes, stamped, head);
      if (status === undefined || !truthful.has(status)) {
        violations.push(`step ${step}: ${serial} verified ${status} under a stamp at ${stamped}, though from there to ${head} it was ${[...truthful].join(' or ')}`);
      }
    }
  };

  const steer = async (step: number) => {
    // The same draws every step, whatever happens: a run's choices stay those of its seed.
    const [roll, size, index, length, batch] = [random(), between(random, 1, 12), random(), between(random, 2, 12), between(random, 5, 200)];
    const worker = workers[Math.floor(index * workers.length)]!;
    const action = roll < 0.45 ? 'append' : roll < 0.55 ? 'pause' : roll < 0.57 ? 'kill' : roll < 0.63 ? 'outage' : roll < 0.72 ? 'rebuild'
      : roll < 0.76 ? 'newer' : 'wait';
    if (action === 'append' && next < history.length) {
      await append(history.slice(next, next + size));
      next += size;
      count('append');
    } else if (action === 'pause' && paused.size < workers.length - 1 && !paused.has(worker)) {
      const stop = gate();
      worker.control.intercept({ method: /.*/, times: 1, run: stop.pass });
      paused.set(worker, { gate: stop, until: step + length });
      count('pause');
    } else if (action === 'kill') {
      let seen = 0;
      // Killed right after one of its next writes: between a bulk and its checkpoint, or mid-bulk.
      worker.control.intercept({
        method: /.*/, stage: 'after', when: (call) => !isRead(call),
        run: () => {
          if (seen++ !== size % 4) return;
          // Its job ends and its queue lets go, as a dead process's would (BullMQ: once its lock expires).
          void worker.kill();
        },
      });
      paused.get(worker)?.gate.open();
      paused.delete(worker);
      retired.push(worker);
      workers[workers.indexOf(worker)] = newWorker();
      count('kill');
    } else if (action === 'outage' && outageUntil < step) {
      outageUntil = step + length + 2;
      for (const control of everyProcess()) control.outage();
      await settings.outage?.begin();
      count('outage');
    } else if (action === 'newer' && settings.newerWriter) {
      // An older projector meets a newer writer's events: a price change with a field it does not know, and an
      // event of a type it has never heard of, on a watch already published.
      const published = history.slice(0, next).filter((event) => event.type === 'WatchPublished');
      const watch = published[Math.floor(index * published.length)];
      if (watch) {
        const { reference } = watch.data as { reference: string };
        const metadata = { ...watch.metadata, trace_id: `fuzz-${step}` };
        head = settings.newerWriter(`watch-${reference}`, [
          { type: 'WatchPriceChanged', data: { reference, price_cents: 100_000 + size, previous_price_cents: 100_000, price_note: 'newer' }, metadata },
          { type: 'WatchEngraved', data: { reference, text: 'newer' }, metadata },
        ]);
        count('newer');
      }
    } else if (action === 'rebuild' && !rebuilding) {
      const rebuilder = controlledReadStore(shared);
      jitter(rebuilder);
      // A reader may look at any moment, the steps of a switch included.
      rebuilder.intercept({ method: /.*/, stage: 'after', when: (call) => !isRead(call), run: () => look(step) });
      if (outageUntil >= step) rebuilder.outage();
      rebuilders.push(rebuilder);
      // One rebuild in three is paused at its switch, after its last lease check (a long GC, a busy event loop), for
      // as many steps as a pause lasts: past its leases, the live workers take over and move on meanwhile.
      let switching = false;
      if (size % 3 === 0) {
        const held = gate();
        rebuilder.intercept({
          method: 'setControl', times: 1, run: held.pass,
          when: (call) => switching && (call.args[0] as { _id?: string })._id === GENERATIONS_ID,
        });
        // Counted from when the switch is reached: the rebuild gets there steps after it started.
        const hold = { gate: held, until: Number.POSITIVE_INFINITY };
        void held.reached.then(() => { hold.until = current + length; });
        heldSwitches.push(hold);
        count('switch-pause');
      }
      rebuilding = rebuild({ eventStore, readStore: rebuilder.store, batchSize: batch, clock, beforeSwitch: () => { switching = true; } })
        .catch(() => undefined).finally(() => { rebuilding = undefined; });
      count('rebuild');
    }
  };

  for (let step = 0; step < settings.steps; step++) {
    current = step;
    clock.advance(STEP_LEASE_MS);
    await steer(step);
    if (step === outageUntil) {
      for (const control of everyProcess()) control.heal();
      await settings.outage?.end();
    }
    for (const [worker, { gate: stopped, until }] of paused) {
      if (until <= step) {
        stopped.open();
        paused.delete(worker);
      }
    }
    for (const held of heldSwitches) if (held.until <= step) held.gate.open();
    for (let turn = 0; turn < STEP_TURNS; turn++) await sleep(between(random, 0, 2));
    await look(step);
  }

  // The faults end; the rest of the history is appended and the workers must settle by themselves.
  for (const control of everyProcess()) control.heal();
  if (outageUntil >= settings.steps) await settings.outage?.end();
  for (const { gate: stopped } of paused.values()) stopped.open();
  for (const held of heldSwitches) held.gate.open();
  await append(history.slice(next));
  await rebuilding;
  // Once, so that the leases of killed workers expire; the live workers' leases then last as long as they run
  // (and again only after a stall, below).
  clock.advance(2 * DEFAULT_LEASE_TTL_MS);
  const deadline = performance.now() + settings.settleMs;
  let positions = await positionsSeen(shared);
  const reached = () => [...positions.values()].reduce((sum, position) => sum + position, 0);
  let progress = { reached: reached(), at: performance.now() };
  while (PROJECTION_NAMES.some((name) => (positions.get(name) ?? 0) < head) && performance.now() < deadline) {
    await sleep(20);
    positions = await positionsSeen(shared);
    if (reached() !== progress.reached) progress = { reached: reached(), at: performance.now() };
    else if (performance.now() - progress.at > STALL_MS) {
      // Time passes: a worker marked to die at its next write may have taken a lease after the advance above, and
      // died holding it; it expires, as a dead process's lease does. Only then: moving the clock expires the live
      // workers' leases too, which no real clock does to an owner that renews, and on a slow store (a batch over a
      // second) moving it at every stall took each lease from its owner mid-run, again and again.
      if (await deadOwnerHoldsALease(shared, new Set(workers.map((worker) => owners.get(worker))))) {
        clock.advance(2 * DEFAULT_LEASE_TTL_MS);
      }
      progress = { reached: progress.reached, at: performance.now() };
    }
  }
  await look(settings.steps);
  const lagging = PROJECTION_NAMES.filter((name) => (positions.get(name) ?? 0) < head);
  if (lagging.length > 0) {
    const counters = workers.map((worker) => JSON.stringify(worker.projector.counters())).join(' ');
    const leases = await leaseHolders(shared, lagging, clock.wall());
    violations.push(`after ${settings.settleMs} ms without faults, ${lagging.map((name) => `${name} at ${positions.get(name) ?? 0}`).join(', ')} of head ${head} (live workers ${workers.map((worker) => owners.get(worker)).join(', ')}; leases: ${leases}; workers' counters: ${counters})`);
  }
  // What readers see once every projection reached the head: the workers have nothing left to write.
  const settled = await readersView(shared);
  answers.clock.stop();
  // Rarely (about one run in ten of the BullMQ variant on a loaded machine, seen in this session, cause not found), a
  // worker's BullMQ close never ends; its stop is bounded so that the run reports what it checked instead of hanging.
  const unstopped = (await Promise.all([...workers, ...retired].map((worker) => Promise.race([
    worker.close().then(() => false), sleep(CLOSE_WITHIN_MS).then(() => true),
  ])))).filter(Boolean).length;
  if (unstopped > 0) console.log(`      ${unstopped} worker(s) did not stop within ${CLOSE_WITHIN_MS} ms`);
  return { actions, violations, settled, rebuilt: await cleanRebuildView(eventStore) };
}

const LEASE_IDS = new Set(PROJECTION_NAMES.map(leaseId));

/**
 * Whether a lease not released is held by an owner other than the live workers (a killed worker's): the workers
 * judge its expiry by their own watch of it (lease-watch.ts), whatever expiry it states.
 */
async function deadOwnerHoldsALease(store: ReadStore, live: ReadonlySet<string | undefined>): Promise<boolean> {
  return (await store.readControl()).some((doc) => LEASE_IDS.has(doc._id)
    && !isReleased(doc as LeaseDoc) && !live.has((doc as LeaseDoc).owner));
}

/** Who holds the leases of `names`, and for how long yet on the lease clock: what a failure to settle needs said. */
async function leaseHolders(store: ReadStore, names: readonly string[], now: number): Promise<string> {
  const docs = await readControlDocs(store);
  return names.map((name) => {
    const held = docs.get(leaseId(name)) as LeaseDoc | undefined;
    return held ? `${name} by ${held.owner} (token ${held.token}, ${held.expires_at - now} ms left${held.standing ? ', standing' : ''})` : `${name} free`;
  }).join(', ');
}

/** How long the run waits for a worker to stop at its end. */
const CLOSE_WITHIN_MS = 10_000;

/** The verification statuses a serial had at some position from `from` to `to` (NOT_FOUND before it was registered). */
function statusesFrom(changes: readonly SerialChange[], from: number, to: number): Set<string> {
  const statusOf = (change: SerialChange | undefined) => (change === undefined ? 'NOT_FOUND' : change.stolen ? 'STOLEN' : 'AUTHENTIC');
  const statuses = new Set([statusOf(changes.filter((c) => c.position <= from).at(-1))]);
  for (const change of changes) if (change.position > from && change.position <= to) statuses.add(statusOf(change));
  return statuses;
}

/** A reader's read-model clock over `store`, and the read API's one way of answering from it. */
async function readerAnswers(store: ReadStore): Promise<{ clock: PolledReadModelClock; verify: Answerer }> {
  const clock = await startReadModelClock(() => readSnapshotStates(store), {
    intervalMs: 60_000, maxLagMs: Number.MAX_SAFE_INTEGER, freshAnswerMaxLagMs: Number.MAX_SAFE_INTEGER,
  });
  return { clock, verify: answerInSnapshot({ clock } as Partial<ReadingEnv> as ReadingEnv) };
}
