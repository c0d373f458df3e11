/**
 * Read your writes (issue 44, item 1; docs/api.md, "Read your writes") as several processes: README.md's "At scale
 * on one machine" topology (the admin API, two BullMQ projector workers, two API replicas, a private redis-server,
 * this run's FerretDB or MongoDB, one SQLite event store seeded with the demo catalogue as `npx watchcat seed`
 * seeds it), under the seeded fuzz of test/support/min-position-fuzz.ts: admin changes, each followed by reads with
 * `X-Min-Position` at random replicas over HTTP and MCP, while a worker holding leases is frozen past its lease and
 * let go on, then killed and started again. No answer may be below its minimum or miss the change it was asked to
 * follow; every refusal is the documented 503.
 *
 * The seed is printed; `FUZZ_SEED=<n>` replays its choices, `FUZZ_READS=<n>` makes that many reads (the issue's
 * 10^5 run: `bench/read-your-writes.ts --fuzz`), `FUZZ_FAULT_EVERY=<n>` a fault every n reads (default: two faults).
 */
import { expect } from 'chai';
import { demoCatalogue } from '../../services/demo/demo-catalogue.ts';
import { runMinPositionFuzz, type FuzzReport } from '../support/min-position-fuzz.ts';
import { describeMongo } from '../support/mongodb-leg.ts';
import { TOPOLOGY_LEASE_MS } from '../support/lease-topology.ts';
import { seedDemoStore, startReplicaTopology, type ReplicaTopology } from '../support/replica-topology.ts';

const SEED = Number(process.env['FUZZ_SEED'] ?? 44_001);
// Bounded for npm test's time budget (about a minute with its two faults); the bench runs it at scale.
const READS = Number(process.env['FUZZ_READS'] ?? 400);
const FAULT_EVERY = Number(process.env['FUZZ_FAULT_EVERY'] ?? Math.ceil(READS / 3));
/** Concurrent back-office clients, each on a demo watch of its own. */
const CLIENTS = 8;

describeMongo('read your writes across two replicas and two workers, faults injected (issue 44, real processes, seeded)', 'the read-your-writes fuzz', function (leg) {
  // Starting five processes and projecting the demo into FerretDB: about 15 to 20 s here, more on a loaded machine.
  this.timeout(300_000 + READS * 200);
  let topology: ReplicaTopology | undefined;

  before(async function () {
    topology = await startReplicaTopology({
      mongoUrl: leg.url, database: leg.database('ryw_fuzz'), workers: 2, replicas: 2, seed: seedDemoStore,
      env: {
        // One address asks everything here: the limits are not what this test is about.
        RATE_LIMIT_PER_MINUTE: '100000000', VERIFY_RATE_LIMIT_PER_MINUTE: '100000000', VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE: '100000000',
        // Short leases, as in the other topologies of the tests: a takeover takes seconds, not the default's 10.
        PROJECTION_LEASE_SECONDS: String(TOPOLOGY_LEASE_MS / 1_000),
      },
    });
    await topology.untilServed(120_000);
  });
  after(() => topology?.close());

  it(`gives 0 answers below their X-Min-Position and every refusal as the documented 503, while a worker is frozen past its lease and another killed (${READS} reads)`, async function () {
    console.log(`      seed ${SEED} (FUZZ_SEED=${SEED} replays it)`);
    const watches = demoCatalogue().watches;
    const report: FuzzReport = await runMinPositionFuzz(topology!, {
      seed: SEED, reads: READS, clients: CLIENTS,
      watches: watches.slice(0, CLIENTS).map((watch) => ({ reference: watch.reference, price_eur: watch.price_cents / 100 })),
      serialReference: watches[0]!.reference, readsPerChange: [3, 12], mcpShare: 0.05, faultEvery: FAULT_EVERY,
      // Past its lease, so that the other worker takes its projections over before it resumes.
      pauseMs: TOPOLOGY_LEASE_MS + 2_000, log: console.log,
    });
    const { belowMinimum, wrong, bad, ...figures } = report;
    console.log(`      ${JSON.stringify(figures)}`);
    const first = (found: string[]) => `${found.length}, the first:\n${found.slice(0, 5).join('\n')}\n`;
    expect(belowMinimum, `seed ${SEED}: answers below their minimum: ${first(belowMinimum)}`).to.deep.equal([]);
    expect(wrong, `seed ${SEED}: answers at their minimum that miss the change: ${first(wrong)}`).to.deep.equal([]);
    expect(bad, `seed ${SEED}: answers neither right nor the documented refusal: ${first(bad)}`).to.deep.equal([]);
    // The run did what it says: enough reads, each kind of read and change, both faults.
    expect(report.reads).to.be.at.least(READS);
    // Answers of every kind were judged (a loaded machine refuses many reads within the wait; none would prove nothing).
    expect(Object.keys(report.answered_by_kind), 'kinds of read answered').to.include.members(['verify', 'detail', 'status', 'mcp verify_serial', 'mcp get_watch']);
    expect(report.answered, 'reads answered').to.be.at.least(READS / 10);
    expect(Object.keys(report.changes)).to.include.members(['registration', 'price', 'stolen', 'recovered']);
    expect(report.faults.filter((fault) => / frozen /.test(fault)), 'pauses').to.have.length.above(0);
    expect(report.faults.filter((fault) => / killed /.test(fault)), 'kills').to.have.length.above(0);
  });
});
