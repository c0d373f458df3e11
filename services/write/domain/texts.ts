/**
 * Text checks the event schemas cannot make: a schema accepts `"  "`, but a catalogue text that is blank once
 * trimmed is a mistake in one language, so deciders refuse it with the field's name. The catalogue file's check
 * (services/import/catalogue-validation.ts) asks the same functions, so `import --check` cannot pass what a decider
 * then refuses halfway through an import.
 */
import { LANGUAGES, type Language, type LocalizedText } from '../../../shared/events/index.ts';
import { invalid, type DomainError } from './domain-error.ts';

/** What a catalogue text takes, in each language. */
export const NON_BLANK_TEXT = 'a text with a character other than whitespace';

/** A language in which the text of `field` (`name`, `seo.title`) is blank once trimmed. */
export interface BlankText {
  field: string;
  lang: Language;
}

/** Every blank language of the texts of `fields`, in order; texts left out (`undefined`) are not checked. */
export function blankTexts(fields: Record<string, LocalizedText | undefined>): BlankText[] {
  return Object.entries(fields).flatMap(([field, text]) => (text === undefined
    ? []
    : LANGUAGES.filter((lang) => text[lang].trim() === '').map((lang) => ({ field, lang }))));
}

/** The first blank text among `fields`, as an error naming it, or null. */
export function firstBlankText(fields: Record<string, LocalizedText | undefined>): DomainError | null {
  const [first] = blankTexts(fields);
  return first ? invalid(`${first.field} is empty in ${first.lang}`) : null;
}
