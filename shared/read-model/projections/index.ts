/** Every projection of the service, in the order the runner starts them. */
import type { Projection } from './projection.ts';
import { collectionsProjection } from './collections.projection.ts';
import { configuratorsProjection } from './configurators.projection.ts';
import { serialsProjection } from './serials.projection.ts';
import { transparencyLogProjection } from './transparency-log.projection.ts';
import { watchesProjection } from './watches.projection.ts';

export const PROJECTIONS: readonly Projection[] = [
  watchesProjection, collectionsProjection, configuratorsProjection, serialsProjection, transparencyLogProjection as unknown as Projection,
];

/** The projections whose documents the public operations read (all but the transparency log's tiles). */
export const READ_MODEL_PROJECTIONS: readonly Projection[] = PROJECTIONS.filter((projection) => !projection.everyRecord);

export const PROJECTION_NAMES = PROJECTIONS.map((projection) => projection.name);

/** The projections named, in PROJECTIONS order; throws on an unknown name. */
export function selectProjections(names?: readonly string[]): Projection[] {
  if (!names || names.length === 0) return [...PROJECTIONS];
  const unknown = names.filter((name) => !PROJECTION_NAMES.includes(name));
  if (unknown.length > 0) throw new Error(`unknown projection ${unknown.join(', ')} (known: ${PROJECTION_NAMES.join(', ')})`);
  return PROJECTIONS.filter((projection) => names.includes(projection.name));
}
