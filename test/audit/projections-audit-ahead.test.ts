/**
 * `audit projections` after a projector stopped between writing a batch's documents and its checkpoint: documents
 * ahead of their checkpoint are compared with the history at their own position, named apart when they match there
 * (late, not wrong), and differences when they do not (docs/audit.md).
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { streams, type EventStore } from '../../shared/ports/event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import type { CollectionMemberDoc, WatchDoc } from '../../shared/read-model/documents/documents.ts';
import { auditProjections } from '../../services/audit/projections-audit.ts';
import { watchPriceChanged } from '../fixtures/events.ts';
import type { TempStore } from './support/audit-history.ts';
import { AUDIT_KEY, closeLive, liveOverKnownHistory, project, serveAudit } from './support/projections-audit-live.ts';
import { watchcat } from './support/watchcat-run.ts';

describe('audit projections: documents a stopped projector left ahead of their checkpoint', () => {
  let store: TempStore;
  let eventStore: EventStore;
  let live: ReadStore;

  beforeEach(async () => ({ store, eventStore, live } = await liveOverKnownHistory()));
  afterEach(() => closeLive({ store, eventStore, live }));

  /**
   * The live read models as a projector leaves them when it dies after writing a batch's documents and before its
   * checkpoint: RG-1 repriced at position 13 in the watches and in its collection membership (which prices the
   * collection's range), checkpoints still at 12.
   */
  async function crashBeforeCheckpoint(english: Partial<WatchDoc> = {}): Promise<void> {
    await eventStore.append(streams.watch('RG-1'), [watchPriceChanged('RG-1', 1_300_000, 1_250_000)], 1);
    const further = await project(eventStore, createMemoryReadStore());
    try {
      const watches = [{ ...(await further.get<WatchDoc>('watches', 'en:RG-1'))!, ...english }, (await further.get<WatchDoc>('watches', 'fr:RG-1'))!];
      const member = (await further.get<CollectionMemberDoc>('collections', 'member:RG-1'))!;
      expect([...watches, member].map((doc) => doc.position)).to.deep.equal([13, 13, 13]);
      await live.write('watches', watches.map((put) => ({ put })));
      await live.write('collections', [{ put: member }]);
    } finally {
      await further.close();
    }
  }

  it('names documents ahead of their checkpoint (a projector stopped before it) apart, not as differences', async () => {
    await crashBeforeCheckpoint();
    const audit = await auditProjections({ eventStore, live });
    expect(audit.positions).to.include({ watches: 12, collections: 12 });
    expect(audit.differences).to.deep.equal([]);
    expect(audit.ahead).to.deep.equal([
      { collection: 'watches', id: 'en:RG-1', position: 13, checkpoint: 12 },
      { collection: 'watches', id: 'fr:RG-1', position: 13, checkpoint: 12 },
      { collection: 'collections', id: 'member:RG-1', position: 13, checkpoint: 12 },
    ]);
  });

  it('compares each document ahead at its own position, when the stopped batch left them at different ones', async () => {
    // Two reprices of RG-1 (13, 14); the batch wrote the English document as of 13 and the French one as of 14.
    const projectedDoc = async (id: string) => {
      const further = await project(eventStore, createMemoryReadStore());
      try {
        return (await further.get<WatchDoc>('watches', id))!;
      } finally {
        await further.close();
      }
    };
    await eventStore.append(streams.watch('RG-1'), [watchPriceChanged('RG-1', 1_300_000, 1_250_000)], 1);
    const english = await projectedDoc('en:RG-1');
    await eventStore.append(streams.watch('RG-1'), [watchPriceChanged('RG-1', 1_400_000, 1_300_000)], 2);
    const french = await projectedDoc('fr:RG-1');
    await live.write('watches', [{ put: english }, { put: french }]);
    const audit = await auditProjections({ eventStore, live });
    expect(audit.differences).to.deep.equal([]);
    expect(audit.ahead).to.deep.equal([
      { collection: 'watches', id: 'en:RG-1', position: 13, checkpoint: 12 },
      { collection: 'watches', id: 'fr:RG-1', position: 14, checkpoint: 12 },
    ]);
  });

  it('a document ahead of its checkpoint that the history at its own position does not produce is still a difference', async () => {
    await crashBeforeCheckpoint({ price_cents: 1 });
    const audit = await auditProjections({ eventStore, live });
    expect(audit.differences).to.deep.equal([{
      collection: 'watches', id: 'en:RG-1', kind: 'different', fields: [{ path: 'price_cents', live: 1, shadow: 1_300_000 }],
    }]);
    expect(audit.ahead.map(({ id }) => id)).to.deep.equal(['fr:RG-1', 'member:RG-1']);
  });

  it('a document stamped with a position the history did not reach there is a difference, not ahead', async () => {
    // Position 13 touches RG-1 only: an RG-2 document claiming it reflects 13 is wrong at its own position too.
    await crashBeforeCheckpoint();
    const stray = { ...(await live.get<WatchDoc>('watches', 'en:RG-1'))!, _id: 'en:RG-9', reference: 'RG-9' };
    await live.write('watches', [{ put: stray }]);
    const audit = await auditProjections({ eventStore, live });
    expect(audit.differences).to.deep.equal([{ collection: 'watches', id: 'en:RG-9', kind: 'only_in_live' }]);
  });

  describe('watchcat audit projections against a server', () => {
    const env = () => ({ ...store.env, ADMIN_API_KEYS: `${AUDIT_KEY}:audit` });

    it('exits 0 after a projector stopped before its checkpoint, naming the documents ahead of it apart (route answers 200)', async () => {
      await crashBeforeCheckpoint();
      const server = await serveAudit(eventStore, live);
      try {
        const result = await watchcat(env(), 'audit', 'projections', '--server', server.url);
        expect(result.code, result.notes.join('\n')).to.equal(0);
        expect(result.out).to.deep.equal([
          '3 document(s) ahead of their projection\'s checkpoint, each as the history has it at its own position '
          + '(a projector stopped between writing them and its checkpoint; the next run catches up):',
          '  watches en:RG-1 at 13, checkpoint 12', '  watches fr:RG-1 at 13, checkpoint 12', '  collections member:RG-1 at 13, checkpoint 12',
          'read models match the history: watches at 12, collections at 12, configurators at 12, serials at 12, transparency-log at 12',
        ]);
      } finally {
        await server.close();
      }
    });
  });
});
