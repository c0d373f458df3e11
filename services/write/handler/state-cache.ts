/**
 * A loader that keeps, per process, the folded state of the streams it has loaded, with the revision each one
 * reflects, so a command reading a long or large stream (a serial registration reads its whole watch stream)
 * does not parse, revalidate and fold it again on every command.
 *
 * Why a cached state can never let a wrong decision land: the cache is never answered as it is. Every load asks
 * the store for the events after the cached revision (one indexed read, empty when nothing changed) and folds
 * them in, whoever appended them, this process or another one on the same file. The state answered is therefore
 * the stream as stored at the moment of the load, exactly what the full read it replaces would have answered;
 * what may happen between that read and the append is unchanged (the append's expected revision guards the
 * command's own stream, and a context stream is as current as a fresh read would have made it).
 */
import type { DomainEvent } from '../../../shared/events/index.ts';
import type { EventStore } from '../../../shared/ports/event-store.ts';
import { foldOnto, type Folding, type LoadedState, type StateLoader } from './load-state.ts';

/**
 * Every watch, collection and configurator of a manufacture's catalogue, with room for the serials in use; a watch
 * state holds about 6 KB, so the cache stays within a few MB.
 */
const DEFAULT_CACHED_STREAMS = 1_024;

interface CachedState {
  /** The folding that built the state: a stream read through another folding is not this state. */
  decider: object;
  state: unknown;
  revision: number;
}

export function cachingStateLoader(store: EventStore, capacity = DEFAULT_CACHED_STREAMS): StateLoader {
  // Map order is recency order: a hit moves its stream to the end, the first one is evicted.
  const cache = new Map<string, CachedState>();

  function remember(stream: string, decider: object, loaded: LoadedState<unknown>): void {
    if (loaded.expected === 'no_stream') return;
    const held = cache.get(stream);
    // A concurrent load of the same stream may have stored a newer state meanwhile: keep the newer one.
    if (held && held.decider === decider && held.revision > loaded.expected) return;
    cache.delete(stream);
    cache.set(stream, { decider, state: loaded.state, revision: loaded.expected });
    if (cache.size > capacity) cache.delete(cache.keys().next().value!);
  }

  return {
    async load<S, E extends DomainEvent>(decider: Folding<S, E>, stream: string): Promise<LoadedState<S>> {
      const held = cache.get(stream);
      if (held && held.decider === decider) {
        const later = await store.readStream(stream, { after: held.revision });
        // Revisions are contiguous; a gap would mean the cached state is not this stream's start: read it all.
        if (later.length === 0 || later[0]!.revision === held.revision + 1) {
          // The state was cached under this very decider, so it is an S.
          const loaded = foldOnto(decider, { state: held.state as S, expected: held.revision }, later);
          remember(stream, decider, loaded);
          return loaded;
        }
      }
      const loaded = foldOnto(decider, { state: decider.initialState(), expected: 'no_stream' }, await store.readStream(stream));
      remember(stream, decider, loaded);
      return loaded;
    },
  };
}
