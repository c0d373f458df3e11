/**
 * Case and accent folding for sort keys and search: `Édition` and `edition` fold to the same text. Used by the
 * projections when they write keys and by the read API when it folds a search string, so both sides agree.
 */
export function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

/** Escapes every regular-expression metacharacter so user text is matched literally. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
