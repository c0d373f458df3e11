/**
 * The `input` an error answer echoes, bounded in depth and in size. A 16 KiB body can nest 8,000 levels, which
 * `JSON.parse` reads fine but `JSON.stringify` cannot write back without overflowing the stack; and a `missing`
 * issue's input is the object the field is missing from (as FastAPI shows it), which in a 16 MiB import may hold
 * millions of entries. Nobody needs more than a little of their own input echoed to see what was wrong, so:
 * levels below `ECHO_DEPTH` are cut, and an input holding more than `ECHO_VALUES` values or `ECHO_CHARACTERS`
 * characters of text (keys included) within those levels is echoed as `"[truncated]"` as a whole.
 */
const ECHO_DEPTH = 20;
const ECHO_VALUES = 256;
const ECHO_CHARACTERS = 4_096;
const TRUNCATED = '[truncated]';

/** `value` bounded as above; the work is bounded too, whatever the size of `value`. */
export function cappedInput(value: unknown): unknown {
  return withinBudget(value) ? cappedCopy(value, ECHO_DEPTH) : TRUNCATED;
}

/** Whether the first `ECHO_DEPTH` levels of `value` fit the budget; stops as soon as they do not. */
function withinBudget(root: unknown): boolean {
  let values = ECHO_VALUES;
  let characters = ECHO_CHARACTERS;
  const pending: [unknown, number][] = [[root, ECHO_DEPTH]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, depth] = next;
    values -= 1;
    if (typeof value === 'string') characters -= value.length;
    if (values < 0 || characters < 0) return false;
    if (typeof value !== 'object' || value === null || depth === 0) continue;
    if (Array.isArray(value)) {
      if (value.length > values) return false;
      for (const item of value) pending.push([item, depth - 1]);
    } else {
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        characters -= key.length;
        if (pending.length >= values || characters < 0) return false;
        pending.push([(value as Record<string, unknown>)[key], depth - 1]);
      }
    }
  }
  return true;
}

/** `value` with every array or object below `depth` levels replaced by `TRUNCATED`; recursion at most `depth` deep. */
function cappedCopy(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth === 0) return TRUNCATED;
  if (Array.isArray(value)) return value.map((item) => cappedCopy(item, depth - 1));
  const copy: Record<string, unknown> = {};
  // defineProperty, so a `__proto__` key of the input stays a plain key of the copy.
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(copy, key, { value: cappedCopy(item, depth - 1), enumerable: true, writable: true, configurable: true });
  }
  return copy;
}
