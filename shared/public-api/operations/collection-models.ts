/**
 * A collection's models: its published, customizable watches at their catalogue price, by reference. Read from the
 * watches projection (one price, one source) through the `{collection.code, lang, customizable, reference}` index,
 * so the configurator document holds no watch and a price change writes no configurator.
 */
import type { Language } from '../../events/common.ts';
import type { ReadView } from '../../ports/read-store.ts';
import type { WatchDoc } from '../../read-models/documents.ts';

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

/** The model `modelRef` (any case) of collection `code`, or undefined when it is not one of its customizable watches. */
export async function collectionModel(readStore: ReadView, lang: Language, code: string, modelRef: string): Promise<CollectionModel | undefined> {
  const watch = await readStore.get<WatchDoc>('watches', `${lang}:${modelRef.toUpperCase()}`);
  return watch && watch.collection.code === code && watch.customizable ? toModel(watch) : undefined;
}
