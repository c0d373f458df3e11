import { collectionDecider } from '../../../services/write/collection/collection.decide.ts';
import { aCollection, event } from './support/builders.ts';
import { deciderSpec } from './support/decider-spec.ts';

const spec = deciderSpec(collectionDecider);
const defined = [event('CollectionDefined', aCollection())];

describe('collection decider', () => {
  it('defines a new collection', () => {
    spec.given([], undefined).when({ type: 'DefineCollection', collection: aCollection() })
      .then([event('CollectionDefined', aCollection())]);
  });

  it('refuses to define a collection twice', () => {
    spec.given(defined, undefined).when({ type: 'DefineCollection', collection: aCollection() })
      .thenRefuses('conflict', 'collection lumiere is already defined');
  });

  it('refuses a collection whose name is blank in one language', () => {
    spec.given([], undefined).when({ type: 'DefineCollection', collection: aCollection({ name: { en: 'Lumière', fr: '  ' } }) })
      .thenRefuses('invalid', 'name is empty in fr');
  });

  it('refuses a collection whose diameter is not positive', () => {
    for (const diameter_mm of [0, -38]) {
      spec.given([], undefined).when({ type: 'DefineCollection', collection: aCollection({ diameter_mm }) })
        .thenRefuses('invalid', `diameter_mm must be positive, got ${diameter_mm}`);
    }
  });

  it('revises only the fields that change', () => {
    const name = { en: 'Lumière Nouvelle', fr: 'Lumière Nouvelle' };
    spec.given(defined, undefined)
      .when({ type: 'ReviseCollection', revision: { code: 'lumiere', name, diameter_mm: 38 } })
      .then([event('CollectionRevised', { code: 'lumiere', name })]);
  });

  it('emits nothing for a revision to the current values', () => {
    spec.given(defined, undefined)
      .when({ type: 'ReviseCollection', revision: { code: 'lumiere', type: 'dress', name: aCollection().name } })
      .then([]);
  });

  it('takes a revision into account for the next one', () => {
    spec.given([...defined, event('CollectionRevised', { code: 'lumiere', diameter_mm: 40 })], undefined)
      .when({ type: 'ReviseCollection', revision: { code: 'lumiere', diameter_mm: 40 } })
      .then([]);
  });

  it('refuses to revise an unknown collection', () => {
    spec.given([], undefined).when({ type: 'ReviseCollection', revision: { code: 'nope', diameter_mm: 40 } })
      .thenRefuses('not_found', 'unknown collection nope');
  });

  it('refuses a revision with a blank description', () => {
    spec.given(defined, undefined)
      .when({ type: 'ReviseCollection', revision: { code: 'lumiere', description: { en: '', fr: 'x' } } })
      .thenRefuses('invalid', 'description is empty in en');
  });
});
