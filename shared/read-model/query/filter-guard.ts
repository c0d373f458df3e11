/**
 * Refuses filters that would run code inside the read store. Filters are built by this service only, but a filter
 * with `$where`, `$function`, `$accumulator` or `$expr` would execute JavaScript (MongoDB server-side scripting,
 * mingo's script operators), so both adapters check every filter before it reaches their engine.
 */
import type { Filter } from '../../ports/read-store.ts';

const SCRIPT_OPERATORS = new Set(['$where', '$function', '$accumulator', '$expr']);

/** Thrown for a filter carrying an operator that can run code. Nothing was evaluated. */
class UnsafeFilterError extends Error {
  constructor(readonly operator: string) {
    super(`read store filters may not use ${operator}`);
    this.name = 'UnsafeFilterError';
  }
}

/** Throws `UnsafeFilterError` when a script operator appears anywhere in the filter, at any depth. */
export function assertSafeFilter(filter: Filter): void {
  visit(filter);
}

function visit(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) visit(item);
    return;
  }
  if (value === null || typeof value !== 'object' || value instanceof RegExp) return;
  for (const [key, inner] of Object.entries(value)) {
    if (SCRIPT_OPERATORS.has(key)) throw new UnsafeFilterError(key);
    visit(inner);
  }
}
