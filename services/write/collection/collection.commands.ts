/** Commands of the `collection-{code}` aggregate. */
import type { CollectionDefined, CollectionRevised } from '../../../shared/events/index.ts';

type DefineCollection = { type: 'DefineCollection'; collection: CollectionDefined };
/** Names the fields to change; fields equal to the current ones are left out of the event. */
type ReviseCollection = { type: 'ReviseCollection'; revision: CollectionRevised };

export type CollectionCommand = DefineCollection | ReviseCollection;
