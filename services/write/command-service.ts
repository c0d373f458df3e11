/**
 * The command side's one entry: a method per command, used by the watchcat CLI, the admin API, the seed and the
 * import. It stamps who sent the command and when, and reads aggregate state for callers that compare (import).
 */
import { randomUUID } from 'node:crypto';
import type {
  AccessoryOffered, CategoryKey, CollectionDefined, CollectionRevised, ConfiguratorOptionOffered, DomainEvent,
  StockStatus, WatchPublished, WatchRevised,
} from '../../shared/events/index.ts';
import { canonicalId } from '../../shared/events/index.ts';
import { streams, type EventStore } from '../../shared/ports/event-store.ts';
import { collectionAggregate } from './collection/collection.aggregate.ts';
import type { CollectionState } from './collection/collection.state.ts';
import { configuratorAggregate } from './configurator/configurator.aggregate.ts';
import type { ConfiguratorState } from './configurator/configurator.state.ts';
import type { Aggregate } from './handler/aggregate.ts';
import { isDomainError } from './domain/domain-error.ts';
import { latestYearBegun } from './domain/years.ts';
import { handleCommand, type CommandResult } from './handler/command-handler.ts';
import { rehearsalStore } from './handler/rehearsal-store.ts';
import { cachingStateLoader } from './handler/state-cache.ts';
import { serialAggregate } from './serial/serial.aggregate.ts';
import type { SerialState } from './serial/serial.state.ts';
import { watchAggregate } from './watch/watch.aggregate.ts';
import type { WatchState } from './watch/watch.state.ts';

export type { CommandResult };

/** Who sends a command and which piece of work it belongs to; fresh ids when left out. */
export interface CommandOptions {
  actor?: string;
  /** Shared by every command of one piece of work (an import, an HTTP request). */
  correlationId?: string;
  /** What caused the command; defaults to the correlation id. */
  causationId?: string;
}

type OptionKey = { collection: string; category: CategoryKey; code: string };
type AccessoryKey = { collection: string; code: string };

export interface CommandService {
  readonly store: EventStore;
  /** The clock the service stamps events with and judges dates by (a manufacture year in the future). */
  readonly clock: () => Date;
  /**
   * The same service over a rehearsal of its store (handler/rehearsal-store.ts): every command is decided and its
   * events checked as here, against the store as it is and what the rehearsal appended before; nothing is written,
   * and nothing is told to `onOutcome` (a rehearsed command is not one the service ran).
   */
  rehearsal(): CommandService;
  defineCollection(collection: CollectionDefined, options?: CommandOptions): Promise<CommandResult>;
  reviseCollection(revision: CollectionRevised, options?: CommandOptions): Promise<CommandResult>;
  publishWatch(watch: WatchPublished, options?: CommandOptions): Promise<CommandResult>;
  reviseWatch(revision: WatchRevised, options?: CommandOptions): Promise<CommandResult>;
  changeWatchPrice(reference: string, priceCents: number, options?: CommandOptions): Promise<CommandResult>;
  changeWatchStock(reference: string, stockStatus: StockStatus, options?: CommandOptions): Promise<CommandResult>;
  withdrawWatch(reference: string, options?: CommandOptions): Promise<CommandResult>;
  offerOption(option: ConfiguratorOptionOffered, options?: CommandOptions): Promise<CommandResult>;
  repriceOption(option: OptionKey, priceCents: number, options?: CommandOptions): Promise<CommandResult>;
  withdrawOption(option: OptionKey, options?: CommandOptions): Promise<CommandResult>;
  chooseDefaultOption(option: OptionKey, options?: CommandOptions): Promise<CommandResult>;
  offerAccessory(accessory: AccessoryOffered, options?: CommandOptions): Promise<CommandResult>;
  repriceAccessory(accessory: AccessoryKey, unitPriceCents: number, options?: CommandOptions): Promise<CommandResult>;
  withdrawAccessory(accessory: AccessoryKey, options?: CommandOptions): Promise<CommandResult>;
  registerSerial(serial: string, reference: string, manufactureYear: number, options?: CommandOptions): Promise<CommandResult>;
  reportSerialStolen(serial: string, options?: CommandOptions): Promise<CommandResult>;
  recoverSerial(serial: string, options?: CommandOptions): Promise<CommandResult>;
  /** Current state of one aggregate, folded from its stream. */
  collectionState(code: string): Promise<CollectionState>;
  watchState(reference: string): Promise<WatchState>;
  configuratorState(collection: string): Promise<ConfiguratorState>;
  serialState(serial: string): Promise<SerialState>;
}

interface CommandServiceOptions {
  clock?: () => Date;
  /** Actor of commands sent without one. */
  actor?: string;
  /** Told how each command ended, by its type (`ReportSerialStolen`), e.g. to count them in the process's metrics. */
  onOutcome?: (command: string, outcome: CommandOutcome) => void;
}

/** `appended` events, `unchanged` (the state already was so), `refused` (a domain error), or `failed` otherwise. */
export type CommandOutcome = 'appended' | 'unchanged' | 'refused' | 'failed';

export function createCommandService(store: EventStore, settings: CommandServiceOptions = {}): CommandService {
  const clock = settings.clock ?? (() => new Date());
  const defaultActor = settings.actor ?? 'watchcat';
  // One cache per service, hence per store: cached revisions only mean something against the store they came from.
  const states = cachingStateLoader(store);

  function run<C extends { type: string }, S, E extends DomainEvent, Ctx>(
    aggregate: Aggregate<C, S, E, Ctx>, command: C, options: CommandOptions = {},
  ): Promise<CommandResult> {
    const correlation = options.correlationId ?? randomUUID();
    const metadata = {
      actor: options.actor ?? defaultActor,
      correlation_id: correlation,
      causation_id: options.causationId ?? correlation,
    };
    const handled = handleCommand(store, states, aggregate, command, metadata, { clock });
    const { onOutcome } = settings;
    if (!onOutcome) return handled;
    return handled.then(
      (result) => {
        onOutcome(command.type, result.appended > 0 ? 'appended' : 'unchanged');
        return result;
      },
      (error: unknown) => {
        onOutcome(command.type, isDomainError(error) ? 'refused' : 'failed');
        throw error;
      },
    );
  }

  const stateOf = async <C, S, E extends DomainEvent, Ctx>(aggregate: Aggregate<C, S, E, Ctx>, stream: string) =>
    (await states.load(aggregate.decider, stream)).state;

  return {
    store,
    clock,
    rehearsal: () => createCommandService(rehearsalStore(store), { clock, actor: defaultActor }),
    defineCollection: (collection, o) => run(collectionAggregate, { type: 'DefineCollection', collection }, o),
    reviseCollection: (revision, o) => run(collectionAggregate, { type: 'ReviseCollection', revision }, o),
    publishWatch: (watch, o) => run(watchAggregate, { type: 'PublishWatch', watch }, o),
    reviseWatch: (revision, o) => run(watchAggregate, { type: 'ReviseWatch', revision }, o),
    changeWatchPrice: (reference, price_cents, o) =>
      run(watchAggregate, { type: 'ChangeWatchPrice', reference: canonicalId(reference), price_cents }, o),
    changeWatchStock: (reference, stock_status, o) =>
      run(watchAggregate, { type: 'ChangeWatchStock', reference: canonicalId(reference), stock_status }, o),
    withdrawWatch: (reference, o) => run(watchAggregate, { type: 'WithdrawWatch', reference: canonicalId(reference) }, o),
    offerOption: (option, o) => run(configuratorAggregate, { type: 'OfferOption', option }, o),
    repriceOption: (option, price_cents, o) => run(configuratorAggregate, { type: 'RepriceOption', option, price_cents }, o),
    withdrawOption: (option, o) => run(configuratorAggregate, { type: 'WithdrawOption', option }, o),
    chooseDefaultOption: (option, o) => run(configuratorAggregate, { type: 'ChooseDefaultOption', option }, o),
    offerAccessory: (accessory, o) => run(configuratorAggregate, { type: 'OfferAccessory', accessory }, o),
    repriceAccessory: (accessory, unit_price_cents, o) =>
      run(configuratorAggregate, { type: 'RepriceAccessory', accessory, unit_price_cents }, o),
    withdrawAccessory: (accessory, o) => run(configuratorAggregate, { type: 'WithdrawAccessory', accessory }, o),
    registerSerial: (serial, reference, manufacture_year, o) =>
      run(serialAggregate, {
        type: 'RegisterSerial', serial: canonicalId(serial), reference: canonicalId(reference), manufacture_year, current_year: latestYearBegun(clock()),
      }, o),
    reportSerialStolen: (serial, o) => run(serialAggregate, { type: 'ReportSerialStolen', serial: canonicalId(serial) }, o),
    recoverSerial: (serial, o) => run(serialAggregate, { type: 'RecoverSerial', serial: canonicalId(serial) }, o),
    collectionState: (code) => stateOf(collectionAggregate, streams.collection(code)),
    watchState: (reference) => stateOf(watchAggregate, streams.watch(canonicalId(reference))),
    configuratorState: (collection) => stateOf(configuratorAggregate, streams.configurator(collection)),
    serialState: (serial) => stateOf(serialAggregate, streams.serial(canonicalId(serial))),
  };
}
