/** Rules of a collection: defined once, with every text present in both languages; revisions only of a defined one. */
import { assertNever, type CollectionDefined, type CollectionRevised, type LocalizedText } from '../../../shared/events/index.ts';
import type { Decider, Decision } from '../domain/decider.ts';
import { conflict, invalid, unknown } from '../domain/domain-error.ts';
import { changedFields } from '../domain/changes.ts';
import { firstBlankText } from '../domain/texts.ts';
import type { CollectionCommand } from './collection.commands.ts';
import { evolveCollection, initialCollectionState, type CollectionEvent, type CollectionState } from './collection.state.ts';

/** The texts of a collection that may not be blank (the catalogue file's check asks too). */
export function collectionTexts(collection: CollectionDefined | CollectionRevised): Record<string, LocalizedText | undefined> {
  return { name: collection.name, short_description: collection.short_description, description: collection.description };
}

function decideCollection(command: CollectionCommand, state: CollectionState): Decision<CollectionEvent> {
  switch (command.type) {
    case 'DefineCollection': {
      const { collection } = command;
      if (state.defined) return conflict(`collection ${collection.code} is already defined`);
      const blank = firstBlankText(collectionTexts(collection));
      if (blank) return blank;
      if (!(collection.diameter_mm > 0)) return invalid(`diameter_mm must be positive, got ${collection.diameter_mm}`);
      return [{ type: 'CollectionDefined', data: collection }];
    }
    case 'ReviseCollection': {
      const { revision } = command;
      if (!state.defined) return unknown('collection', revision.code);
      const blank = firstBlankText(collectionTexts(revision));
      if (blank) return blank;
      const changes = changedFields(revision, 'code', state.collection);
      return Object.keys(changes).length === 0 ? [] : [{ type: 'CollectionRevised', data: { code: revision.code, ...changes } }];
    }
    default:
      return assertNever(command);
  }
}

export const collectionDecider: Decider<CollectionCommand, CollectionState, CollectionEvent> = {
  initialState: initialCollectionState,
  evolve: evolveCollection,
  decide: (command, state) => decideCollection(command, state),
};
