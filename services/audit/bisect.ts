/**
 * The largest i from `from` to `to` for which `holds(i)` is true, `holds(from)` being known true and `holds` true up to
 * some i and false after it: a bisection, asking at most ceil(log2(to - from + 1)) questions. How `audit log verify`
 * finds the first leaf of an export that differs, and the monitor the last tree it saw that a new one extends.
 */
export async function lastHolding(from: number, to: number, holds: (i: number) => Promise<boolean>): Promise<number> {
  let low = from;
  let high = to;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (await holds(middle)) low = middle;
    else high = middle - 1;
  }
  return low;
}
