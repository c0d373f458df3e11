/**
 * The section 2.4 shapes of the seed: the machine-readable description defines them, no public operation uses them,
 * and the OpenAPI document lists them under `components.schemas` (each under its `title`) for completeness.
 */
import type { TSchema } from 'typebox';
import { accountShapes } from './accounts.ts';
import { afterSalesShapes } from './after-sales.ts';
import { assistantShapes } from './assistant.ts';
import { clientShapes } from './clients.ts';
import { inventoryShapes } from './inventory.ts';
import { knowledgeBaseShapes } from './knowledge-base.ts';

export const legacyShapes: readonly TSchema[] = [
  ...accountShapes, ...clientShapes, ...afterSalesShapes, ...inventoryShapes, ...knowledgeBaseShapes, ...assistantShapes,
];
