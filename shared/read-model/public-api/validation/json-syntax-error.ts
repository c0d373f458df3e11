/**
 * Locates a JSON syntax error the way Python's `json` module reports it, so a malformed body gets FastAPI's exact
 * `json_invalid` answer (`loc: ["body", offset]`, `ctx.error` such as `Expecting value`). Only runs after
 * `JSON.parse` has already failed, so its speed does not matter; the body is at most 16 KiB.
 */
interface JsonSyntaxError {
  /** Offset in characters (code points), as Python counts. */
  offset: number;
  error: string;
}

class Failure {
  constructor(readonly at: number, readonly error: string) {}
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y;
const LITERALS = ['null', 'true', 'false', 'NaN', 'Infinity', '-Infinity'];

export function locateJsonSyntaxError(text: string): JsonSyntaxError | null {
  try {
    const end = skipSpace(text, parseDocument(text));
    if (end !== text.length) throw new Failure(end, 'Extra data');
    return null;
  } catch (failure) {
    if (!(failure instanceof Failure)) throw failure;
    let offset = 0;
    for (const _ of text.slice(0, failure.at)) offset++;
    return { offset, error: failure.error };
  }
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && ' \t\n\r'.includes(text[at] as string)) at++;
  return at;
}

/**
 * Walks one JSON value and returns where it ends. Iterative, with the open arrays and objects on a list of its
 * own: a 16 KiB body can nest 16,000 levels, far more than the call stack holds.
 */
function parseDocument(text: string): number {
  const open: ('[' | '{')[] = [];
  let at = skipSpace(text, 0);
  for (;;) {
    // Here a value starts at `at`.
    const char = text[at];
    if (char === '[' || char === '{') {
      at = skipSpace(text, at + 1);
      if (text[at] === (char === '[' ? ']' : '}')) at += 1;
      else {
        open.push(char);
        if (char === '{') at = memberValue(text, at);
        continue;
      }
    } else at = parseScalar(text, at);
    // Here a value ended: close what it ends, or go on to the next element or member.
    for (;;) {
      const container = open.at(-1);
      if (container === undefined) return at;
      at = skipSpace(text, at);
      if (text[at] === (container === '[' ? ']' : '}')) {
        open.pop();
        at += 1;
        continue;
      }
      if (text[at] !== ',') throw new Failure(at, "Expecting ',' delimiter");
      at = skipSpace(text, at + 1);
      if (container === '{') at = memberValue(text, at);
      break;
    }
  }
}

/** Reads `"name" :` at `at` and returns where the member's value starts. */
function memberValue(text: string, at: number): number {
  if (text[at] !== '"') throw new Failure(at, 'Expecting property name enclosed in double quotes');
  at = skipSpace(text, parseString(text, at));
  if (text[at] !== ':') throw new Failure(at, "Expecting ':' delimiter");
  return skipSpace(text, at + 1);
}

function parseScalar(text: string, at: number): number {
  if (text[at] === '"') return parseString(text, at);
  for (const literal of LITERALS) if (text.startsWith(literal, at)) return at + literal.length;
  NUMBER.lastIndex = at;
  if (NUMBER.test(text)) return NUMBER.lastIndex;
  throw new Failure(at, 'Expecting value');
}

function parseString(text: string, start: number): number {
  let at = start + 1;
  while (at < text.length) {
    const code = text.charCodeAt(at);
    if (code === 0x22) return at + 1;
    if (code < 0x20) throw new Failure(at, 'Invalid control character at');
    if (code === 0x5c) {
      const escape = text[at + 1];
      if (escape === 'u') {
        // Python points a bad \uXXXX at its `u`, unlike the other escapes, which it points at their backslash.
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(at + 2, at + 6))) throw new Failure(at + 1, 'Invalid \\uXXXX escape');
        at += 6;
        continue;
      }
      if (escape === undefined) break;
      if (!'"\\/bfnrt'.includes(escape)) throw new Failure(at, 'Invalid \\escape');
      at += 2;
      continue;
    }
    at++;
  }
  throw new Failure(start, 'Unterminated string starting at');
}
