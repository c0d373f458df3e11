// The trust profile (issue 41): `npm run mutate -- --profile trust`. Only the modules that make answers provable
// (TRUST_MUTATED) and the suites that exercise them, so that they can be judged in a run of their own; its
// incremental file and reports are its own too (reports/mutation/trust/), so it never overwrites the whole run's.
import { profileOf, TRUST_MUTATED, TRUST_SUITES } from './stryker.config.mjs';

export const MUTATED = TRUST_MUTATED;

export default profileOf('trust', MUTATED, [
  ...TRUST_SUITES,
  // The unit suites of the log, the audit, receipts and the codec; the command handler's (load-state.ts).
  'test/unit/transparency/*.test.ts',
  'test/unit/audit/*.test.ts',
  'test/unit/receipt/*.test.ts',
  'test/unit/events/*.test.ts',
  'test/services/receipt-*.test.ts',
  'test/services/command-handler.test.ts',
  'test/services/state-cache.test.ts',
  'test/services/unreadable-stream.test.ts',
  // The log's routes and the tree a signed answer pins, through the embedded service; the witness policy.
  'test/api/log-routes.test.ts',
  'test/api/signed-answer-checkpoint.test.ts',
  'test/api/strict-proof-parameters.test.ts',
  'test/services/witness-policy.test.ts',
  // The proofs a verify answer carries, through the publisher (log-publisher.ts, `indexProofs`).
  'test/api/verify-index-proof.test.ts',
  // The control documents under leases, rebuilds and the log's rebuild.
  'test/unit/projections/*.test.ts',
  'test/projector/*.test.ts',
  'test/contract/memory-read-store*.test.ts',
]);
