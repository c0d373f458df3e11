/** Two operations for the tests of the answer decision: one that serves a built model, one that needs it fresh. */
import { ok, type PublicOperation } from '../../../../shared/read-model/public-api/operations/public-operation.ts';

/** Counts the watches of its snapshot: one read. */
export const counting: PublicOperation = {
  spec: {} as PublicOperation['spec'],
  reads: ['watches'],
  cacheable: true,
  async handle(_request, { readStore }) {
    return ok({ total: await readStore.count('watches', {}) });
  },
};

/** As the verification: reads the serials, which it needs fresh. */
export const verifying: PublicOperation = { ...counting, reads: ['serials'], fresh: true, cacheable: false };
