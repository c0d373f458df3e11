/**
 * The `input` an error answer echoes, cut below a fixed depth. A 16 KiB body can nest 8,000 levels, which
 * `JSON.parse` reads fine but `JSON.stringify` cannot write back without overflowing the stack; nobody needs more
 * than a few levels of their own input echoed to see what was wrong.
 */
const ECHO_DEPTH = 20;
const TRUNCATED = '[truncated]';

/** `value` with every array or object below `depth` levels replaced by `TRUNCATED`; recursion at most `depth` deep. */
export function cappedInput(value: unknown, depth = ECHO_DEPTH): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth === 0) return TRUNCATED;
  if (Array.isArray(value)) return value.map((item) => cappedInput(item, depth - 1));
  const copy: Record<string, unknown> = {};
  // defineProperty, so a `__proto__` key of the input stays a plain key of the copy.
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(copy, key, { value: cappedInput(item, depth - 1), enumerable: true, writable: true, configurable: true });
  }
  return copy;
}
