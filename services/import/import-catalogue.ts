/**
 * Catalogue import: issues only the commands needed to bring the event store to a file's state, so importing the
 * same file twice appends nothing. It adds and updates (define, publish, revise, reprice, restock, offer,
 * register, report stolen) but never removes or recovers: a withdrawal or a recovery is a decision of its own.
 * With `missingOnly` (the demo seed) it only adds: what exists is left as it is, whatever changed it since.
 */
import { randomUUID } from 'node:crypto';
import type { CollectionDefined, WatchPublished } from '../../shared/events/index.ts';
import type { CatalogueFile, SerialEntry } from '../catalogue/catalogue-file.ts';
import { streams } from '../../shared/ports/event-store.ts';
import { canonicalId } from '../../shared/events/common.ts';
import type { CommandOptions, CommandService } from '../write/command-service.ts';
import { changedFields } from '../write/domain/changes.ts';
import { DomainError } from '../write/domain/domain-error.ts';
import { latestYearBegun } from '../write/domain/years.ts';
import { validateCatalogueFile } from './catalogue-validation.ts';
import { importConfigurator } from './configurator-import.ts';
import { ImportTally, type ImportPass, type ImportPhase, type ImportReport, type OnProgress } from './import-progress.ts';

/**
 * `missingOnly`: only add what the store lacks (define, publish, offer, register, and report a theft the serial's
 * stream never had), never change what is there: the demo seed, run again over a catalogue the back office changed
 * since, undoes none of it (a price, a stock status, a recovery).
 */
export type ImportOptions = CommandOptions & { missingOnly?: boolean };

/** Serials go through a few at a time: each is its own stream, and an EventStoreDB round trip is worth overlapping. */
const SERIAL_CONCURRENCY = 8;

/** Adds the entry to a refusal, so the caller knows which one of thousands failed. */
async function about<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DomainError) throw new DomainError(error.kind, `${what}: ${error.message}`);
    throw error;
  }
}

async function importCollection(service: CommandService, entry: CollectionDefined, tally: ImportTally, options: CommandOptions, missingOnly: boolean) {
  const state = await service.collectionState(entry.code);
  if (!state.defined) return tally.record(await service.defineCollection(entry, options));
  if (missingOnly) return;
  const changes = changedFields(entry, 'code', state.collection);
  if (Object.keys(changes).length > 0) tally.record(await service.reviseCollection({ code: entry.code, ...changes }, options));
}

async function importWatch(service: CommandService, entry: WatchPublished, tally: ImportTally, options: CommandOptions, missingOnly: boolean) {
  const state = await service.watchState(entry.reference);
  if (state.status === 'unpublished') return tally.record(await service.publishWatch(entry, options));
  if (missingOnly) return;
  if (state.status === 'withdrawn') {
    tally.warnings.push(`watch ${entry.reference} is withdrawn; left as it is`);
    return;
  }
  const { reference, collection, price_cents, stock_status, ...texts } = entry;
  if (collection !== state.watch.collection) {
    tally.warnings.push(`watch ${reference} belongs to collection ${state.watch.collection}, not ${collection}; left there`);
  }
  const revision = changedFields({ reference, ...texts }, 'reference', state.watch);
  if (Object.keys(revision).length > 0) tally.record(await service.reviseWatch({ reference, ...revision }, options));
  if (price_cents !== state.watch.price_cents) tally.record(await service.changeWatchPrice(reference, price_cents, options));
  if (stock_status !== state.watch.stock_status) tally.record(await service.changeWatchStock(reference, stock_status, options));
}

async function importSerial(service: CommandService, entry: SerialEntry, tally: ImportTally, options: CommandOptions, missingOnly: boolean) {
  const state = await service.serialState(entry.serial);
  if (state.status === 'unregistered') {
    tally.record(await service.registerSerial(entry.serial, entry.reference, entry.manufacture_year, options));
  } else if (state.reference !== entry.reference || state.manufacture_year !== entry.manufacture_year) {
    // The file's entry is not the serial the registry holds: a theft it reports may be another watch's, and marking
    // this one stolen would tell its owner's buyer STOLEN. Reported by hand if it is this one (`serial report-stolen`).
    const theft = entry.stolen && state.status !== 'stolen' ? ', its theft in the file not reported' : '';
    tally.warnings.push(`serial ${entry.serial} is registered for ${state.reference} (${state.manufacture_year}); left as it is${theft}`);
    return;
  }
  if (!entry.stolen || state.status === 'stolen') return;
  if (missingOnly && await theftEverReported(service, entry.serial)) return;
  tally.record(await service.reportSerialStolen(entry.serial, options));
}

/** Whether the serial's stream holds a theft report, since recovered or not (a recovery leaves the state `registered`). */
async function theftEverReported(service: CommandService, serial: string): Promise<boolean> {
  const events = await service.store.readStream(streams.serial(canonicalId(serial)));
  return events.some((event) => event.type === 'SerialReportedStolen');
}

/**
 * Runs `work` over `items`, at most `limit` at a time, stopping at the first failure: no item is started after it,
 * and it is thrown only once the items already under way have ended. The caller takes the failure as the end of the
 * import (the admin API answers it): a worker still taking items, or one whose append lands after the answer, would
 * append (register serials, report thefts) behind an answer that said the import stopped.
 */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      try {
        await work(items[next++] as T);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const outcomes = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker));
  const failure = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failure) throw failure.reason;
}

/** What an import is asked to do beside the file: who sends its commands, whether it only adds, who hears its progress. */
interface ImportSettings {
  options: CommandOptions;
  missingOnly: boolean;
  onProgress: OnProgress | undefined;
}

/** Issues the file's commands through `service`, entry by entry, phase by phase: one pass of the import. */
async function importEntries(
  service: CommandService, file: CatalogueFile, pass: ImportPass, { options, missingOnly, onProgress }: ImportSettings,
): Promise<ImportReport> {
  const tally = new ImportTally();
  const total = file.collections.length + file.watches.length + file.configurators.length + file.serials.length;
  let done = 0;
  const step = (phase: ImportPhase) => {
    done += 1;
    onProgress?.({ pass, phase, done, total });
  };

  for (const entry of file.collections) {
    await about(`collection ${entry.code}`, () => importCollection(service, entry, tally, options, missingOnly));
    step('collections');
  }
  for (const entry of file.watches) {
    await about(`watch ${entry.reference}`, () => importWatch(service, entry, tally, options, missingOnly));
    step('watches');
  }
  for (const entry of file.configurators) {
    await about(`configurator of collection ${entry.collection}`, () => importConfigurator(service, entry, tally, options, missingOnly));
    step('configurators');
  }
  await eachLimited(file.serials, SERIAL_CONCURRENCY, async (entry) => {
    await about(`serial ${entry.serial}`, () => importSerial(service, entry, tally, options, missingOnly));
    step('serials');
  });

  const position = tally.commands > 0 ? tally.position : await service.store.headPosition();
  return { commands: tally.commands, events: tally.events, position, warnings: tally.warnings };
}

/**
 * Validates `candidate` as a catalogue file (throws `CatalogueFileError`), then rehearses the whole import against the
 * store as it is, appending nothing (`CommandService.rehearsal`), then imports it. A refused command (an unknown
 * collection, a watch withdrawn) is therefore met in the rehearsal: the import stops with its `DomainError`, prefixed
 * with the entry it was about, before anything is appended. Only a store another writer changes between the rehearsal
 * and the import can still refuse a command midway; what was appended before then stays, and importing the file
 * again completes it.
 */
export async function importCatalogue(
  service: CommandService, candidate: unknown, onProgress?: OnProgress, { missingOnly = false, ...options }: ImportOptions = {},
): Promise<ImportReport> {
  const file: CatalogueFile = validateCatalogueFile(candidate, latestYearBegun(service.clock()));
  const settings = { missingOnly, onProgress, options: { actor: 'import', ...options, correlationId: options.correlationId ?? randomUUID() } };
  await importEntries(service.rehearsal(), file, 'checking', settings);
  return importEntries(service, file, 'importing', settings);
}
