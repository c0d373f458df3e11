/**
 * A collection's models: its published, customizable watches at their catalogue price, by reference. Read from the
 * watches projection (one price, one source) through the `{collection.code, lang, customizable, reference}` index,
 * so the configurator document holds no watch and a price change writes no configurator.
 */
import { canonicalId, type Language } from '../../../events/common.ts';
import type { ReadView } from '../../../ports/read-store.ts';
import type { WatchDoc } from '../../documents/documents.ts';
import { withdrawnId } from '../../projections/watches.projection.ts';

export interface CollectionModel {
  model_ref: string;
  /** In the answer's language. */
  name: string;
  base_price_cents: number;
}

const toModel = (watch: WatchDoc): CollectionModel => ({ model_ref: watch.reference, name: watch.name, base_price_cents: watch.price_cents });

export async function collectionModels(readStore: ReadView, lang: Language, code: string): Promise<CollectionModel[]> {
  const watches = await readStore.find<WatchDoc>('watches', { 'collection.code': code, lang, customizable: true }, { sort: { reference: 1 } });
  return watches.map(toModel);
}

/** Why a reference is not a model of the collection, in words for the client. */
export interface ModelRefusal {
  refused: string;
}

/**
 * The model `modelRef` (any case) of collection `code`, or why it is not one of its customizable watches: a watch of
 * another collection, one not customizable, one withdrawn (its marker in the watches projection), or none at all.
 */
export async function collectionModel(readStore: ReadView, lang: Language, code: string, modelRef: string): Promise<CollectionModel | ModelRefusal> {
  const reference = canonicalId(modelRef);
  const watch = await readStore.get<WatchDoc>('watches', `${lang}:${reference}`);
  if (watch) {
    if (watch.collection.code !== code) return { refused: `model '${modelRef}' is a watch of collection '${watch.collection.code}', not of collection '${code}'` };
    return watch.customizable ? toModel(watch) : { refused: `watch '${modelRef}' of collection '${code}' is not customizable` };
  }
  const withdrawn = await readStore.get('watches', withdrawnId(reference));
  return { refused: withdrawn ? `model '${modelRef}' has been withdrawn from the catalogue` : `unknown model '${modelRef}'` };
}
