/**
 * An event store put back to an older copy and appended to past the checkpoints before a projector looks (or after
 * an operator resumed one parked for the short history): the head no longer stands before the checkpoints, yet the
 * events at the positions they count are not the ones applied. A projector reading "after its checkpoint" would skip
 * them, a theft among them included, and confirm the head as applied: the theft answered AUTHENTIC as fresh. Each
 * checkpoint records the id of the event at its position (docs/api.md, "Stores put back from a copy"), which a
 * projector finds again in the history before it reads on, or parks.
 */
import { expect } from 'chai';
import { Command } from 'commander';
import { pino } from 'pino';
import { serialRegistered, serialReportedStolen } from '../fixtures/events.ts';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { loadConfig } from '../../shared/config/config.ts';
import type { EventStore, NewEvent } from '../../shared/ports/event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { readControlDocs, liveCheckpointOf, type CheckpointState } from '../../shared/read-model/projections/control-docs.ts';
import { PROJECTIONS } from '../../shared/read-model/projections/index.ts';
import { resumeProjection } from '../../shared/read-model/projections/parking.ts';
import { readProjectionStates } from '../../shared/read-model/projections/projection-states.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { createProjector } from '../../projector/runner.ts';
import { ProjectionsCommandError, registerProjectionsCommands } from '../../services/cli/projections.commands.ts';
import { appendAll, catalogueHistory } from './support/history.ts';
import { capturingLogger } from '../support/signed-log.ts';

const logger = pino({ level: 'silent' });

type Line = { level: number; msg: string; alert?: string; projection?: string; position?: number };

describe('an event store rewritten under the read models, past their checkpoints', () => {
  const history = catalogueHistory(5);
  let readStore: ReadStore;
  let original: EventStore;
  let restored: EventStore;
  const queue = createInlineJobQueue({ attempts: 3, backoffMs: 5 });
  /** The position of the last event the read models applied from the history before the restore. */
  let lost: number;
  /** The event at `lost`: the last the read models applied. */
  let lastApplied: NewEvent;
  let confirmedBefore: Map<string, string | undefined>;

  beforeEach(async () => {
    readStore = createMemoryReadStore();
    original = openSqliteEventStore(':memory:');
    restored = openSqliteEventStore(':memory:');
    await appendAll(original, history);
    lastApplied = serialReportedStolen('TMP-00004');
    lost = await appendAll(original, [serialReportedStolen('TMP-00003'), lastApplied]);
    await createProjector({ eventStore: original, readStore, queue, logger }).catchUp();
    confirmedBefore = new Map((await readProjectionStates(readStore)).map((state) => [state.name, state.confirmed?.at]));
    // The copy: the history without the two thefts.
    await appendAll(restored, history);
  });
  afterEach(async () => {
    await original.close();
    await restored.close();
  });
  after(async () => queue.close());

  /** Appended to the copy: a theft of a serial the read models hold authentic first, then enough to pass `lost`. */
  async function growPast(): Promise<number> {
    const events: NewEvent[] = [serialReportedStolen('TMP-00000'), serialRegistered('TMP-90001', { reference: 'TMP-1', collection: 'tempo' }),
      serialRegistered('TMP-90002', { reference: 'TMP-1', collection: 'tempo' }), serialRegistered('TMP-90003', { reference: 'TMP-1', collection: 'tempo' })];
    const head = await appendAll(restored, events);
    expect(head, 'the copy grew past the checkpoints').to.be.above(lost);
    return head;
  }

  /** Every projection parked at the checkpoint it had, saying the history was rewritten and the way back, confirming nothing new. */
  async function expectAllParkedAsRewritten(lines: Line[]): Promise<void> {
    const states = await readProjectionStates(readStore);
    expect(states.map((state) => state.name)).to.have.members(PROJECTIONS.map((projection) => projection.name));
    for (const state of states) {
      expect(state.status, `${state.name}: parked`).to.equal('parked');
      expect(state.parked?.position).to.equal(lost);
      expect(state.parked?.reason, `${state.name}: names the event applied there`).to.include('rewritten');
      expect(state.parked?.reason).to.include(`position ${lost}`);
      expect(state.parked?.reason).to.include('`watchcat rebuild`');
      expect(state.position, `${state.name}: the checkpoint did not move past what it applied`).to.equal(lost);
      expect(state.confirmed?.at, `${state.name}: no new confirmation`).to.equal(confirmedBefore.get(state.name));
    }
    // The theft of TMP-00000 not applied: the read model still says authentic, and is served as parked, never fresh.
    const serial = await readStore.get('serials', 'TMP-00000');
    expect(serial).to.have.property('status', 'authentic');
    const alerts = lines.filter((line) => line.alert === 'history behind the read models');
    expect(alerts.map(({ level, projection, position }) => ({ level, projection, position })))
      .to.have.deep.members(states.map((state) => ({ level: 50, projection: state.name, position: lost })));
  }

  async function liveOf(name: string): Promise<{ generation: number; checkpoint: CheckpointState | undefined }> {
    return liveCheckpointOf(await readControlDocs(readStore), PROJECTIONS.find((projection) => projection.name === name)!);
  }

  it('parks every projection when the restored history grew past the checkpoints before any projector ran', async () => {
    await growPast();
    const { logger: watched, lines } = capturingLogger<Line>();
    await createProjector({ eventStore: restored, readStore, queue, logger: watched }).catchUp();
    await expectAllParkedAsRewritten(lines);
  });

  it('refuses to resume a projection once the history grew past it, naming why; the projector parks one resumed by hand again', async () => {
    await createProjector({ eventStore: restored, readStore, queue, logger }).catchUp();
    expect((await readProjectionStates(readStore)).every((state) => state.status === 'parked'), 'parked for the short history').to.equal(true);
    await growPast();
    // The operator asks to resume each: refused, the checkpoint's event no longer where it applied it (the head no
    // longer stands before it): resumed, every API process would take it as holding the events at the reused positions.
    for (const { name } of PROJECTIONS) {
      const program = new Command('watchcat').exitOverride();
      registerProjectionsCommands(program, {
        config: () => loadConfig({}), out: () => {}, store: async () => restored,
        openReadStore: async () => ({ ...readStore, close: async () => {} }),
      });
      const refused = await program.parseAsync(['node', 'watchcat', 'projections', 'resume', name]).then(() => undefined, (error: unknown) => error);
      expect(refused, name).to.be.instanceOf(ProjectionsCommandError);
      expect((refused as Error).message, name).to.match(new RegExp(`^${name}: the event store holds event \\S+ at position \\d+, where this projection's checkpoint applied event `));
    }
    expect((await readProjectionStates(readStore)).every((state) => state.status === 'parked'), 'left parked').to.equal(true);
    // Resumed by hand in the store (as an earlier version's command would): its projector parks it again.
    for (const projection of PROJECTIONS) await resumeProjection(readStore, projection);
    expect((await readProjectionStates(readStore)).every((state) => state.status === 'running'), 'resumed').to.equal(true);
    const { logger: watched, lines } = capturingLogger<Line>();
    await createProjector({ eventStore: restored, readStore, queue, logger: watched }).catchUp();
    await expectAllParkedAsRewritten(lines);
  });

  it('keeps running from a checkpoint whose event the history still holds, and records the event it applied last', async () => {
    for (const { name } of PROJECTIONS) {
      expect((await liveOf(name)).checkpoint?.applied?.id, `${name}: the id of the last event applied`).to.equal(lastApplied.id);
    }
    const theft = serialReportedStolen('TMP-00000');
    const head = await appendAll(original, [theft]);
    const { logger: watched, lines } = capturingLogger<Line>();
    await createProjector({ eventStore: original, readStore, queue, logger: watched }).catchUp();
    for (const state of await readProjectionStates(readStore)) {
      expect(state.status, state.name).to.equal('running');
      expect(state.position, state.name).to.equal(head);
      expect(state.confirmed?.head, state.name).to.equal(head);
      expect((await liveOf(state.name)).checkpoint?.applied?.id, state.name).to.equal(theft.id);
    }
    expect(await readStore.get('serials', 'TMP-00000')).to.have.property('status', 'stolen');
    expect(lines.filter((line) => line.alert !== undefined)).to.deep.equal([]);
  });

  it('on positions that are log offsets, reads only from where an event starts, and still parks on a history rewritten past them', async () => {
    // Each event takes 10 positions, as EventStoreDB's log offsets do; a read after a position inside one is refused.
    const offsets = (store: EventStore): EventStore => ({
      ...store,
      append: async (stream, events, expected) => {
        const result = await store.append(stream, events, expected);
        return { ...result, position: result.position * 10 };
      },
      readStream: async (stream, options) => (await store.readStream(stream, options)).map((event) => ({ ...event, position: event.position * 10 })),
      readAll: async ({ after, limit }) => {
        if (after % 10 !== 0) throw new Error(`no event starts at position ${after}`);
        return (await store.readAll({ after: after / 10, limit })).map((event) => ({ ...event, position: event.position * 10 }));
      },
      headPosition: async () => (await store.headPosition()) * 10,
    });
    const { readStoredTexts: _dropped, countAfter: _uncounted, ...plain } = offsets(original);
    readStore = createMemoryReadStore();
    await createProjector({ eventStore: plain, readStore, queue, logger }).catchUp();
    const registered = serialRegistered('TMP-80000', { reference: 'TMP-1', collection: 'tempo' });
    await appendAll(original, [registered]);
    await createProjector({ eventStore: plain, readStore, queue, logger }).catchUp();
    for (const state of await readProjectionStates(readStore)) expect([state.name, state.status]).to.deep.equal([state.name, 'running']);
    expect((await liveOf('serials')).checkpoint?.applied?.id).to.equal(registered.id);
    // The copy without the thefts, grown past them.
    await growPast();
    lost = (lost + 1) * 10;
    confirmedBefore = new Map((await readProjectionStates(readStore)).map((state) => [state.name, state.confirmed?.at]));
    const { readStoredTexts: _texts, countAfter: _count, ...copy } = offsets(restored);
    const { logger: watched, lines } = capturingLogger<Line>();
    await createProjector({ eventStore: copy, readStore, queue, logger: watched }).catchUp();
    await expectAllParkedAsRewritten(lines);
  });

  it('records the event applied last in the checkpoints a rebuild opens, so the history it was built from is checked too', async () => {
    const appended = serialReportedStolen('TMP-00000');
    await appendAll(restored, [appended]);
    await rebuild({ eventStore: restored, readStore });
    for (const { name } of PROJECTIONS) expect((await liveOf(name)).checkpoint?.applied?.id, name).to.equal(appended.id);
    await restored.close();
    // Put back again under the rebuilt read models, then grown past them: parked, not read after.
    restored = openSqliteEventStore(':memory:');
    await appendAll(restored, history);
    lost = await appendAll(restored, [serialRegistered('TMP-90001', { reference: 'TMP-1', collection: 'tempo' })]);
    await appendAll(restored, [serialRegistered('TMP-90002', { reference: 'TMP-1', collection: 'tempo' })]);
    confirmedBefore = new Map((await readProjectionStates(readStore)).map((state) => [state.name, state.confirmed?.at]));
    await createProjector({ eventStore: restored, readStore, queue, logger }).catchUp();
    for (const state of await readProjectionStates(readStore)) {
      expect([state.name, state.status, state.position, state.confirmed?.at]).to.deep.equal([state.name, 'parked', lost, confirmedBefore.get(state.name)]);
      expect(state.parked?.reason).to.include(`where this projection's checkpoint applied event ${appended.id}`);
    }
  });
});
