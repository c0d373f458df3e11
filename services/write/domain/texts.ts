/**
 * Text checks the event schemas cannot make: a schema accepts `"  "`, but a catalogue text that is blank once
 * trimmed is a mistake in one language, so deciders refuse it with the field's name.
 */
import type { LocalizedText } from '../../../shared/events/index.ts';
import { invalid, type DomainError } from './domain-error.ts';

/** The first blank language of `text`, as an error naming `field`, or null. */
export function blankText(field: string, text: LocalizedText | undefined): DomainError | null {
  if (text === undefined) return null;
  for (const lang of ['en', 'fr'] as const) {
    if (text[lang].trim() === '') return invalid(`${field} is empty in ${lang}`);
  }
  return null;
}

/** The first blank text among `fields`, or null. */
export function firstBlankText(fields: Record<string, LocalizedText | undefined>): DomainError | null {
  for (const [field, text] of Object.entries(fields)) {
    const problem = blankText(field, text);
    if (problem) return problem;
  }
  return null;
}
