/**
 * The gram index of the catalogue search, as PostgreSQL's pg_trgm does it: each watch document carries the set of
 * trigrams of its folded search text (`search_grams`, indexed as a multikey field), and a search first asks for
 * the documents holding every trigram of the folded term, then checks the literal substring on those few only.
 *
 * Terms shorter than three characters have no trigram. For them the set also holds the text's last bigram and last
 * character, so that every substring of one or two characters starts some gram: the documents holding a gram
 * that starts with the term (a prefix range of the same index) are exactly those containing it. The work is then
 * bounded by the matches (one or two characters match much of the catalogue), never by a scan of the language.
 */
import { escapeRegExp } from './fold.ts';

const GRAM = 3;

/** The distinct grams of an already folded text, in order of first appearance. */
export function searchGrams(folded: string): string[] {
  const grams = new Set<string>();
  const chars = [...folded];
  for (let i = 0; i + GRAM <= chars.length; i += 1) grams.add(chars.slice(i, i + GRAM).join(''));
  // The tail, shorter than a trigram: each substring of one or two characters then starts some gram.
  for (let length = Math.min(GRAM - 1, chars.length); length >= 1; length -= 1) grams.add(chars.slice(-length).join(''));
  return [...grams];
}

/**
 * The condition on `search_grams` that every document containing the folded `term` meets, and that narrows the
 * candidates through the index: all the term's trigrams, or for a shorter term the grams starting with it.
 */
export function gramCondition(term: string): Record<string, unknown> {
  const chars = [...term];
  if (chars.length < GRAM) return { $regex: `^${escapeRegExp(term)}` };
  const grams = new Set<string>();
  for (let i = 0; i + GRAM <= chars.length; i += 1) grams.add(chars.slice(i, i + GRAM).join(''));
  return { $all: [...grams] };
}
