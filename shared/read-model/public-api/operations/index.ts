/** The seven public operations, in the order the contract lists them. */
import { catalogueOperation } from './catalogue.operation.ts';
import { collectionsOperation } from './collections.operation.ts';
import type { PublicOperationSpec } from './operation.ts';
import { optionsOperation } from './options.operation.ts';
import { priceOperation } from './price.operation.ts';
import type { PublicOperation } from './public-operation.ts';
import { statusOperation } from './status.operation.ts';
import { verifyOperation } from './verify.operation.ts';
import { watchDetailOperation } from './watch-detail.operation.ts';

export const publicOperationHandlers: readonly PublicOperation[] = [
  statusOperation, catalogueOperation, watchDetailOperation, collectionsOperation, optionsOperation, priceOperation,
  verifyOperation,
];

export const publicOperations: PublicOperationSpec[] = publicOperationHandlers.map((op) => op.spec);
