/**
 * Locates a JSON syntax error the way Python's `json` module reports it, so a malformed body gets FastAPI's exact
 * `json_invalid` answer (`loc: ["body", offset]`, `ctx.error` such as `Expecting value`). Only runs after
 * `JSON.parse` has already failed, so its speed does not matter; the body is at most 16 KiB.
 */
export interface JsonSyntaxError {
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
    const end = skipSpace(text, parseValue(text, skipSpace(text, 0)));
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

function parseValue(text: string, at: number): number {
  const char = text[at];
  if (char === '"') return parseString(text, at);
  if (char === '{') return parseObject(text, at);
  if (char === '[') return parseArray(text, at);
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

function parseObject(text: string, start: number): number {
  let at = skipSpace(text, start + 1);
  if (text[at] === '}') return at + 1;
  for (;;) {
    if (text[at] !== '"') throw new Failure(at, 'Expecting property name enclosed in double quotes');
    at = skipSpace(text, parseString(text, at));
    if (text[at] !== ':') throw new Failure(at, "Expecting ':' delimiter");
    at = skipSpace(text, parseValue(text, skipSpace(text, at + 1)));
    if (text[at] === '}') return at + 1;
    if (text[at] !== ',') throw new Failure(at, "Expecting ',' delimiter");
    at = skipSpace(text, at + 1);
  }
}

function parseArray(text: string, start: number): number {
  let at = skipSpace(text, start + 1);
  if (text[at] === ']') return at + 1;
  for (;;) {
    at = skipSpace(text, parseValue(text, at));
    if (text[at] === ']') return at + 1;
    if (text[at] !== ',') throw new Failure(at, "Expecting ',' delimiter");
    at = skipSpace(text, at + 1);
  }
}
