// The serial index profile (issues 41 and 45): `npm run mutate -- --profile index`. The verifiable serial index
// alone (the VRF, the prefix tree, the index projection, the publisher's checkpoint index and the receipt's index
// proof) with the suites that exercise it, so that it can be judged in minutes rather than inside the trust profile's
// hours. Its modules are in the trust profile too (TRUST_MUTATED); this is a narrower run of the same mutants.
import { profileOf } from './stryker.config.mjs';

export const MUTATED = [
  'shared/read-model/transparency/vrf.ts',
  'shared/read-model/transparency/prefix-tree.ts',
  'shared/read-model/transparency/serial-index.ts',
  'read-api/transparency/checkpoint-index.ts',
  'read-api/transparency/serial-vrf-file.ts',
  'services/audit/receipt/index-proof.ts',
];

export default profileOf('index', MUTATED, [
  'test/unit/transparency/vrf.test.ts',
  'test/unit/transparency/prefix-tree.test.ts',
  'test/unit/transparency/serial-index.test.ts',
  'test/unit/transparency/checkpoint-index.test.ts',
  'test/unit/transparency/checkpoint-index-advance.test.ts',
  'test/unit/transparency/serial-vrf-file.test.ts',
  'test/unit/receipt/index-proof.test.ts',
  // The proof through the running service and `watchcat receipt verify`; the index checked by torchwood's prefix.
  'test/api/verify-index-proof.test.ts',
  'test/services/index-proof-verify.test.ts',
  'test/interop/prefix-interop.test.ts',
]);
