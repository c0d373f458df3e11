/**
 * The commands that bring one configurator to a file's entry: offer what is missing (the file's default first in a
 * category that has none, since the first option offered becomes the default), reprice what differs, then choose
 * the file's default. Options and accessories absent from the file are left alone: an import only adds and updates.
 * `missingOnly`: only offer what is missing, never reprice nor choose another default (import-catalogue.ts).
 */
import { CATEGORY_KEYS, type CategoryKey } from '../../shared/events/index.ts';
import type { ConfiguratorEntry } from '../catalogue/catalogue-file.ts';
import type { CommandOptions, CommandService } from '../write/command-service.ts';
import { sameData } from '../write/domain/changes.ts';
import type { ImportTally } from './import-progress.ts';
import { ownEntry } from '../write/domain/own-entry.ts';

type OptionEntry = NonNullable<ConfiguratorEntry['categories'][string]>[number];

/** The file's default first: it becomes the category's default if the category has none yet. */
function defaultFirst(options: OptionEntry[]): OptionEntry[] {
  return [...options].sort((a, b) => Number(b.default ?? false) - Number(a.default ?? false));
}

export async function importConfigurator(
  service: CommandService, entry: ConfiguratorEntry, tally: ImportTally, options: CommandOptions, missingOnly: boolean,
): Promise<void> {
  const { collection } = entry;
  const state = await service.configuratorState(collection);
  for (const category of CATEGORY_KEYS) {
    const wanted = entry.categories[category];
    if (!wanted) continue;
    const current = state.categories[category]?.options ?? {};
    for (const option of defaultFirst(wanted)) {
      const key = { collection, category, code: option.code };
      const existing = ownEntry(current, option.code);
      if (!existing) {
        tally.record(await service.offerOption({ ...key, label: option.label, price_cents: option.price_cents }, options));
        continue;
      }
      if (missingOnly) continue;
      if (existing.price_cents !== option.price_cents) tally.record(await service.repriceOption(key, option.price_cents, options));
      if (!sameData(existing.label, option.label)) warnLabel(tally, `option ${option.code} in category ${category}`, collection);
    }
    if (!missingOnly) await chooseDefault(service, collection, category, wanted, state.categories[category]?.defaultCode, tally, options);
  }
  for (const accessory of entry.accessories) {
    const existing = ownEntry(state.accessories, accessory.code);
    if (!existing) {
      tally.record(await service.offerAccessory({ collection, ...accessory }, options));
      continue;
    }
    if (missingOnly) continue;
    const key = { collection, code: accessory.code };
    if (existing.unit_price_cents !== accessory.unit_price_cents) {
      tally.record(await service.repriceAccessory(key, accessory.unit_price_cents, options));
    }
    if (!sameData(existing.label, accessory.label)) warnLabel(tally, `accessory ${accessory.code}`, collection);
    if (existing.max_quantity !== accessory.max_quantity) {
      tally.warnings.push(`accessory ${accessory.code} of collection ${collection}: max quantity differs; no event changes it, left as it is`);
    }
  }
}

/** Chooses the file's default when the category already had another one (a new category got it by being first). */
async function chooseDefault(
  service: CommandService, collection: string, category: CategoryKey, wanted: OptionEntry[],
  previousDefault: string | null | undefined, tally: ImportTally, options: CommandOptions,
): Promise<void> {
  const fileDefault = wanted.find((o) => o.default)?.code;
  if (!fileDefault || !previousDefault || fileDefault === previousDefault) return;
  tally.record(await service.chooseDefaultOption({ collection, category, code: fileDefault }, options));
}

function warnLabel(tally: ImportTally, what: string, collection: string): void {
  tally.warnings.push(`${what} of collection ${collection}: label differs; no event changes it, left as it is`);
}
