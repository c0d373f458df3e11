/**
 * The seeded mutation fuzz of `watchcat receipt verify` (test/reliability/receipt-fuzz.test.ts): valid files of each
 * kind (a signed answer saved with `curl -si` over HTTP and over MCP, and the offline serial index proof file) are
 * edited at random, byte by byte (bits, bytes, insertions, deletions, look-alike characters, whitespace, line ends,
 * trailing data), line by line (dropped, doubled, moved), token by token (numbers, base64, statuses, serials, lines
 * taken from another valid file at the same checkpoint) and field by field (an answer's JSON with its Content-Digest
 * made again, its headers, the checkpoint note's lines and cosignatures), and each edit is judged: either the verifier
 * refuses it, or what it says is what the original says (mutantProblem).
 *
 * Every choice is drawn from one seed. The files themselves are made afresh by each run (keys, event ids, times), so a
 * replay makes the same choices over files of the same shape, not the same bytes.
 */
import { createHash } from 'node:crypto';
import { between } from '../../shared/random/seeded-random.ts';

export type ReceiptKind = 'http' | 'mcp' | 'proof';

export interface FuzzFile { name: string; kind: ReceiptKind; bytes: Buffer }

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
/** A string's UTF-8 bytes as latin1 text: the files are edited as latin1, one character per byte. */
const utf8 = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');
const fromUtf8 = (text: string): string => Buffer.from(text, 'latin1').toString('utf8');
const show = (text: string): string => JSON.stringify(fromUtf8(text.length > 40 ? `${text.slice(0, 40)}...` : text));

const STATUSES = ['AUTHENTIC', 'STOLEN', 'NOT_FOUND'] as const;
/** Characters that mean something to one of the formats read: line ends, separators, base64's own, a dash. */
const INSERTS = ['\n', '\r\n', '\n\n', ' ', '\t', '\0', '=', '==', '+', '/', '"', ',', ';', '?', ':', '-', '0', 'A', '\\n', '{}', utf8('\u00a0'), utf8('\u2014 ')];
/** Look-alikes: Greek and Cyrillic capitals, other dashes, a no-break space, full-width digits, another line separator. */
const LOOK_ALIKES: readonly [string, string][] = [
  ['A', '\u0391'], ['O', '\u041e'], ['T', '\u0422'], ['E', '\u0415'], ['-', '\u2011'], ['-', '\u2212'], ['0', '\uff10'], ['1', '\uff11'],
  [' ', '\u00a0'], ['\u2014', '\u2013'], ['\u2014', '\u2015'], ['\n', '\u2028'], ['/', '\u2215'], ['=', '\ua78a'],
].map(([from, to]) => [utf8(from!), utf8(to!)]);
const BASE64 = /[A-Za-z0-9+/]{12,}={0,2}/g;
const NUMBER = /\d+/g;

/** An edited text, and how it was edited (said when it breaks the guarantee). */
interface Mutation { text: string; how: string }

/** Every match of `pattern` in `text`: its index and text. */
function matches(text: string, pattern: RegExp): { at: number; found: string }[] {
  return [...text.matchAll(pattern)].map((match) => ({ at: match.index, found: match[0] }));
}

const splice = (text: string, at: number, remove: number, insert: string): string => `${text.slice(0, at)}${insert}${text.slice(at + remove)}`;

/** One match of `pattern` (drawn among those in `text`) replaced by what `by` makes of it. */
function replaceOne(random: Random, text: string, pattern: RegExp, by: (found: string) => string, what: string): Mutation | undefined {
  const found = matches(text, pattern);
  if (found.length === 0) return undefined;
  const { at, found: old } = pick(random, found);
  const next = by(old);
  return { text: splice(text, at, old.length, next), how: `${what} ${show(old)} -> ${show(next)} at ${at}` };
}

/** Edits of a line list: drop, double, move, swap, line ends, spaces at either end. */
function lineEdit(random: Random, lines: string[], what: string): { lines: string[]; how: string } {
  const out = [...lines];
  if (out.length === 0) return { lines: [''], how: `${what}: an empty line` };
  const i = between(random, 0, out.length - 1);
  const j = between(random, 0, out.length - 1);
  const line = out[i]!;
  switch (between(random, 0, 6)) {
    case 0: out.splice(i, 1); return { lines: out, how: `${what}: line ${i} dropped` };
    case 1: out.splice(i, 0, line); return { lines: out, how: `${what}: line ${i} doubled` };
    case 2: out.splice(i, 1); out.splice(j, 0, line); return { lines: out, how: `${what}: line ${i} moved to ${j}` };
    case 3: [out[i], out[j]] = [out[j]!, line]; return { lines: out, how: `${what}: lines ${i} and ${j} swapped` };
    case 4: out[i] = line.endsWith('\r') ? line.slice(0, -1) : `${line}\r`; return { lines: out, how: `${what}: line ${i}'s end CR toggled` };
    case 5: out[i] = `${line}${pick(random, [' ', '\t', '  '])}`; return { lines: out, how: `${what}: line ${i} given trailing space` };
    default: out[i] = ` ${line}`; return { lines: out, how: `${what}: line ${i} given a leading space` };
  }
}

/** Edits anywhere in the text, whatever its format. */
function byteEdit(random: Random, text: string, donors: readonly string[]): Mutation | undefined {
  const at = between(random, 0, Math.max(0, text.length - 1));
  switch (between(random, 0, 10)) {
    case 0: {
      const bit = 1 << between(random, 0, 7);
      return { text: splice(text, at, 1, String.fromCharCode(text.charCodeAt(at) ^ bit)), how: `bit ${bit} flipped at ${at}` };
    }
    case 1: {
      const value = random() < 0.5 ? pick(random, INSERTS).slice(0, 1) : String.fromCharCode(between(random, 0, 255));
      return { text: splice(text, at, 1, value), how: `byte at ${at} set to ${show(value)}` };
    }
    case 2: {
      const value = pick(random, INSERTS);
      return { text: splice(text, at, 0, value), how: `${show(value)} inserted at ${at}` };
    }
    case 3: {
      const length = between(random, 1, 8);
      return { text: splice(text, at, length, ''), how: `${length} bytes deleted at ${at}` };
    }
    case 4: {
      const [from, to] = pick(random, LOOK_ALIKES);
      return replaceOne(random, text, new RegExp(from.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'), 'g'), () => to, 'look-alike');
    }
    case 5: {
      const { lines, how } = lineEdit(random, text.split('\n'), 'text');
      return { text: lines.join('\n'), how };
    }
    case 6: {
      const tail = pick(random, ['\n', '\n\n', '\r\n', 'x', ' ', '\0', pick(random, text.split('\n')), `\n${pick(random, donors)}`]);
      return { text: `${text}${tail}`, how: `trailing ${show(tail)}` };
    }
    case 7:
      return replaceOne(random, text, NUMBER, (n) => pick(random, [String(Number(n) + 1), String(Math.max(0, Number(n) - 1)), '0', `0${n}`,
        String(Number(n) * 2), '9007199254740993', `-${n}`, `${n}.0`, `${n} `]), 'number');
    case 8:
      return replaceOne(random, text, BASE64, (token) => base64Edit(random, token, [text, ...donors]), 'base64');
    case 9:
      return replaceOne(random, text, /AUTHENTIC|STOLEN|NOT_FOUND/g, (status) => pick(random, [...STATUSES.filter((other) => other !== status), status.toLowerCase(), `${status} `]), 'status');
    default:
      return replaceOne(random, text, /[A-Z]{2}-\d{4}-\d{4}/g, (serial) => pick(random, [serial.toLowerCase(), serial.replace(/\d$/, (d) => String((Number(d) + 1) % 10)),
        ...donors.flatMap((donor) => matches(donor, /[A-Z]{2}-\d{4}-\d{4}/g).map((match) => match.found))]), 'serial');
  }
}

/** A base64 token changed: one character, its padding, its length, or another token of a valid file in its place. */
function base64Edit(random: Random, token: string, texts: readonly string[]): string {
  const at = between(random, 0, token.length - 1);
  switch (between(random, 0, 4)) {
    case 0: return splice(token, at, 1, token[at] === 'A' ? 'B' : 'A');
    case 1: return token.endsWith('=') ? token.replace(/=+$/, '') : `${token}=`;
    case 2: return token.slice(0, -4);
    case 3: return `${token}AAAA`;
    default: {
      const same = texts.flatMap((text) => matches(text, BASE64).map((match) => match.found)).filter((other) => other !== token && other.length === token.length);
      return same.length > 0 ? pick(random, same) : token.split('').reverse().join('');
    }
  }
}

/** Edits of a signed checkpoint note (C2SP signed-note): its body's lines, its signature lines, its blank line. */
function noteEdit(random: Random, note: string, donorNotes: readonly string[]): Mutation {
  const split = note.lastIndexOf('\n\n');
  if (split < 0) return { text: `\n\n${note}`, how: 'a blank line before the note' };
  const body = note.slice(0, split + 1);
  const signatures = note.slice(split + 2).split('\n').filter((line) => line !== '');
  const bodyLines = body.split('\n').slice(0, -1);
  // Lines of another note twice as often: the one way to a cosignature the note lacks.
  switch (pick(random, [0, 1, 2, 3, 3, 4, 5])) {
    case 0: {
      const { lines, how } = lineEdit(random, signatures, 'note signatures');
      return { text: `${body}\n${lines.map((line) => `${line}\n`).join('')}`, how };
    }
    case 1: {
      const { lines, how } = lineEdit(random, bodyLines, 'note body');
      return { text: `${lines.map((line) => `${line}\n`).join('')}\n${signatures.map((line) => `${line}\n`).join('')}`, how };
    }
    case 2: {
      const i = between(random, 0, bodyLines.length - 1);
      const line = bodyLines[i]!;
      const last = line.split(' ').pop()!;
      const next = pick(random, [[`${line} `], [line.replace(/ /, '  ')], [line, line], [line, 'x'], [line, ''],
        [`${line.slice(0, line.length - last.length)}${base64Edit(random, last, [note])}`]]);
      const lines = [...bodyLines.slice(0, i), ...next, ...bodyLines.slice(i + 1)];
      return { text: `${lines.map((l) => `${l}\n`).join('')}\n${signatures.map((l) => `${l}\n`).join('')}`, how: `note body line ${i} ${show(line)} -> ${show(next.join('\n'))}` };
    }
    case 3: {
      // Another note's signature lines, those this note lacks first: a witness's over another checkpoint, say.
      const theirs = donorNotes.flatMap((donor) => donor.slice(donor.lastIndexOf('\n\n') + 2).split('\n').filter((line) => line !== ''));
      const lacking = theirs.filter((line) => !signatures.includes(line));
      const taken = pick(random, lacking.length > 0 ? lacking : theirs);
      if (taken === undefined) return { text: note, how: 'no other note' };
      const i = between(random, 0, signatures.length);
      const lines = random() < 0.5 ? [...signatures, taken] : [...signatures.slice(0, i), taken, ...signatures.slice(i + 1)];
      return { text: `${body}\n${lines.map((line) => `${line}\n`).join('')}`, how: `note given a signature line of another note ${show(taken)}` };
    }
    case 4:
      return { text: note.replace(/\n/g, '\r\n'), how: 'note with CRLF line ends' };
    default: {
      const donor = pick(random, donorNotes);
      return { text: `${body}\n${donor.slice(donor.lastIndexOf('\n\n') + 2)}`, how: 'note given the signatures of another note' };
    }
  }
}

/** The head and body of a saved answer (latin1 text), at its first blank line. */
function answerParts(text: string): { head: string; gap: string; body: string } | undefined {
  const match = /\r?\n\r?\n/.exec(text);
  return match ? { head: text.slice(0, match.index), gap: match[0], body: text.slice(match.index + match[0].length) } : undefined;
}

/** The verification object an answer's JSON body holds (the body itself over HTTP, the structured content over MCP). */
function verificationOf(json: Record<string, unknown>): Record<string, unknown> {
  const result = json['result'] as Record<string, unknown> | undefined;
  return (result?.['structuredContent'] as Record<string, unknown> | undefined) ?? json;
}

/** Edits of a saved answer's JSON body, with its Content-Digest made again most of the time (so the signature is what refuses). */
function jsonEdit(random: Random, text: string, donors: readonly string[]): Mutation | undefined {
  const parts = answerParts(text);
  if (!parts) return undefined;
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(fromUtf8(parts.body)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const verification = verificationOf(json);
  const proof = verification['proof'] as Record<string, string> | undefined;
  const donorVerifications = donors.map(answerParts).flatMap((donor) => {
    try {
      return donor ? [verificationOf(JSON.parse(fromUtf8(donor.body)) as Record<string, unknown>)] : [];
    } catch {
      return [];
    }
  });
  const donor = donorVerifications.length > 0 ? pick(random, donorVerifications) : verification;
  const donorProof = (donor['proof'] ?? {}) as Record<string, string>;
  let how: string;
  let raw: string | undefined;
  switch (between(random, 0, 7)) {
    case 0: verification['verification_status'] = pick(random, STATUSES); how = `verification_status ${String(verification['verification_status'])}`; break;
    case 1: verification['serial'] = donor['serial']; how = `serial ${String(donor['serial'])}`; break;
    case 2: verification['stolen'] = verification['stolen'] !== true; how = 'stolen flipped'; break;
    case 3: {
      if (!proof?.['checkpoint']) return undefined;
      const edit = noteEdit(random, proof['checkpoint'], donorVerifications.map((other) => String((other['proof'] as Record<string, string> | undefined)?.['checkpoint'] ?? '')));
      proof['checkpoint'] = edit.text;
      how = `checkpoint: ${edit.how}`;
      break;
    }
    case 4: {
      if (!proof) return undefined;
      const field = pick(random, ['vrf_proof', 'index_proof', 'checkpoint']);
      proof[field] = random() < 0.5 && donorProof[field] ? donorProof[field] : base64Edit(random, proof[field] ?? '', donors);
      how = `proof.${field} replaced`;
      break;
    }
    case 5: {
      const call = ((json['result'] as Record<string, unknown> | undefined)?.['_meta'] as Record<string, Record<string, unknown>> | undefined)?.['call'];
      if (call) call['arguments'] = { ...(call['arguments'] as object), serial: donor['serial'] };
      else delete verification[pick(random, Object.keys(verification))];
      how = call ? `call's serial ${String(donor['serial'])}` : 'a field deleted';
      break;
    }
    case 6: {
      const keys = Object.keys(verification);
      const key = pick(random, keys);
      raw = JSON.stringify(json).replace(`"${key}":`, `"${key}":${JSON.stringify(donor[key] ?? null)},"${key}":`);
      how = `${key} given twice, the first ${JSON.stringify(donor[key] ?? null)}`;
      break;
    }
    default: raw = JSON.stringify(json, null, between(random, 1, 2)); how = 'body indented';
  }
  const body = utf8(raw ?? JSON.stringify(json));
  if (body === parts.body) return undefined;
  const redigest = random() < 0.8;
  const digest = `sha-256=:${createHash('sha256').update(Buffer.from(body, 'latin1')).digest('base64')}:`;
  const head = redigest ? parts.head.replace(/^(content-digest:[ \t]*).*$/im, `$1${digest}`) : parts.head;
  return { text: `${head}${parts.gap}${body}`, how: `body: ${how}${redigest ? ', digest made again' : ''}` };
}

/** Edits of a saved answer's header lines: names, folds, labels, the echoed request, an interim answer before. */
function headerEdit(random: Random, text: string, donors: readonly string[]): Mutation | undefined {
  const parts = answerParts(text);
  if (!parts) return undefined;
  const eol = parts.head.includes('\r\n') ? '\r\n' : '\n';
  const lines = parts.head.split(eol);
  if (lines.length < 2) return undefined;
  const i = between(random, 1, lines.length - 1);
  const line = lines[i]!;
  const name = line.slice(0, line.indexOf(':'));
  const join = (heads: string[]) => `${heads.join(eol)}${parts.gap}${parts.body}`;
  switch (between(random, 0, 7)) {
    case 0: lines[i] = `${name === name.toLowerCase() ? name.toUpperCase() : name.toLowerCase()}${line.slice(name.length)}`; return { text: join(lines), how: `header ${name}'s name case changed` };
    case 1: lines[i] = line.replace(/ (?=\S+$)/, `${eol} `); return { text: join(lines), how: `header ${name} folded` };
    case 2: {
      const label = pick(random, ['sig2', 'a', 'sig1x']);
      return { text: join(lines.map((l) => l.replace(/^(signature(?:-input)?:\s*)sig1=/i, `$1${label}=`))), how: `label renamed ${label}` };
    }
    case 3: {
      const donorHeads = donors.map(answerParts).flatMap((donor) => donor?.head.split(/\r?\n/).filter((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`)) ?? []);
      if (donorHeads.length === 0) return undefined;
      lines[i] = pick(random, donorHeads);
      return { text: join(lines), how: `header ${name} taken from another answer` };
    }
    case 4: {
      const request = lines.findIndex((l) => /^signed-request:/i.test(l));
      if (request < 0) return undefined;
      const edit = pick(random, ['?', '?x', '#', '/', '%2F', ' ', ':443']);
      lines[request] = edit === ':443' ? lines[request]!.replace(/(\/\/[^/]+)/, `$1${edit}`) : `${lines[request]}${edit}`;
      return { text: join(lines), how: `Signed-Request ${JSON.stringify(lines[request])}` };
    }
    case 5: return { text: `HTTP/1.1 100 Continue${eol}${eol}${text}`, how: 'an interim 100 before' };
    case 6: return { text: text.replace(/\r\n/g, '\n'), how: 'all CRLF made LF' };
    default: {
      const { lines: edited, how } = lineEdit(random, lines.slice(1), 'headers');
      return { text: join([lines[0]!, ...edited]), how };
    }
  }
}

/** Edits of a proof file's answer lines and checkpoint note. */
function proofEdit(random: Random, text: string, donors: readonly string[]): Mutation | undefined {
  const split = text.indexOf('\n\n');
  if (split < 0) return undefined;
  const answer = text.slice(0, split).split('\n');
  const note = text.slice(split + 2);
  if (random() < 0.5 || answer.length < 2) {
    const edit = noteEdit(random, note, donors.map((donor) => donor.slice(donor.indexOf('\n\n') + 2)));
    return { text: `${answer.join('\n')}\n\n${edit.text}`, how: edit.how };
  }
  const i = between(random, 1, answer.length - 1);
  const field = answer[i]!.split(' ')[0];
  const taken = donors.flatMap((donor) => donor.slice(0, donor.indexOf('\n\n')).split('\n')).filter((line) => line.startsWith(`${field} `) && line !== answer[i]);
  if (taken.length > 0 && random() < 0.6) {
    answer[i] = pick(random, taken);
    return { text: `${answer.join('\n')}\n\n${note}`, how: `answer line ${i} taken from another file: ${show(answer[i]!)}` };
  }
  const { lines, how } = lineEdit(random, answer, 'answer');
  return { text: `${lines.join('\n')}\n\n${note}`, how };
}

/** One to three edits of `file`, drawn from `random`; `donors` are the other valid files (their parts may be taken). */
export function mutate(random: Random, file: FuzzFile, donors: readonly FuzzFile[]): Mutation {
  let text = file.bytes.toString('latin1');
  const others = donors.filter((donor) => donor !== file && donor.kind === file.kind).map((donor) => donor.bytes.toString('latin1'));
  const hows: string[] = [];
  for (let edits = between(random, 1, 3); edits > 0; edits -= 1) {
    const structured = file.kind === 'proof' ? proofEdit : pick(random, [jsonEdit, headerEdit]);
    const edit = random() < 0.5 ? structured(random, text, others) : byteEdit(random, text, others);
    if (edit) {
      text = edit.text;
      hows.push(edit.how);
    }
  }
  return { text, how: hows.join('; ') };
}

/** What `watchcat receipt verify` did with a file: its exit code, its output lines and its notes (stderr). */
export interface Verdict { code: number; out: string[]; notes: string[] }

/**
 * A refusal's message that is a JavaScript error rather than a problem named: a crash the command caught (it says
 * "failed:" of an error it does not know) or one a check wrapped (the proof file's check wraps whatever it throws).
 */
const CRASH = /^watchcat: failed: |TypeError|RangeError|SyntaxError|Cannot read|Cannot destructure|is not a function|is not iterable|\bundefined\b|\bNaN\b|ERR_[A-Z_]+|Maximum call stack|\[object /;

/**
 * The statement of a verdict's output, and the witnesses it names. A signature's label is left out: RFC 9421 signs
 * the parameters, not the label, so any label verifies and names nothing the service said.
 */
function statementOf(lines: readonly string[]): { lines: string[]; witnesses: string[][] } {
  const witnesses: string[][] = [];
  const listed = (list: string | undefined) => (list === undefined || list === 'no witness' ? [] : list.split(', '));
  const normal = lines.map((line) => line
    .replace(/^receipt holds: signature \S+ verified$/, 'receipt holds: signature <label> verified')
    .replace(/cosigned by \d+ witness(?:es)?(?: \(([^)]*)\))?/, (_, list?: string) => { witnesses.push(listed(list)); return 'cosigned by <witnesses>'; })
    .replace(/cosigned here by ([^)]*)\)/, (_, list: string) => { witnesses.push(listed(list)); return 'cosigned here by <witnesses>)'; }));
  return { lines: normal, witnesses };
}

/**
 * What a proof file says, as the format lays it out: its serial, status and VRF proof lines and its checkpoint note's
 * text (what the log signed). Not its index proof: a sibling's label past the prefix of the node it hangs from is
 * bound by nothing, so those bits may change and the proof still proves what it proved (prefix-tree.ts).
 */
function proofStatement(text: string): string[] {
  const split = text.indexOf('\n\n');
  const note = text.slice(split + 2);
  return [...text.slice(0, split).split('\n').filter((line) => !line.startsWith('index ')), note.slice(0, note.lastIndexOf('\n\n') + 1)];
}

/**
 * Why the verdict on `mutant` breaks the guarantee, or undefined when it holds: a clean refusal (exit 1, one line
 * naming a problem), or exit 0 saying exactly what the original says. A proof file's cosignatures are lines anyone may
 * drop (a note's signatures are not signed: C2SP signed-note), so its witnesses may be fewer, never others and never
 * short of `leastWitnesses`; what it says (proofStatement) must be the original's. A signed answer's checkpoint is in
 * its signed body: its witnesses are the original's.
 */
export function mutantProblem(kind: ReceiptKind, original: { text: string; verdict: Verdict }, mutant: { text: string; verdict: Verdict }, leastWitnesses: number): string | undefined {
  const { code, out, notes } = mutant.verdict;
  if (code === 1) {
    if (notes.length !== 1 || !notes[0]!.startsWith('watchcat: ') || CRASH.test(notes[0]!)) return `refused without naming a problem: ${JSON.stringify(notes)}`;
    return undefined;
  }
  if (code !== 0) return `exit ${code}: ${JSON.stringify(notes)}`;
  if (notes.length > 0) return `verified with notes ${JSON.stringify(notes)}`;
  const said = statementOf(out);
  const truth = statementOf(original.verdict.out);
  if (JSON.stringify(said.lines) !== JSON.stringify(truth.lines)) {
    const at = said.lines.findIndex((line, i) => line !== truth.lines[i]);
    const line = (lines: readonly string[], i: number) => JSON.stringify(lines[i] ?? '(no line)');
    return `verified saying ${line(out, at < 0 ? truth.lines.length : at)} where the original says ${line(original.verdict.out, at < 0 ? truth.lines.length : at)}`;
  }
  for (const [i, witnesses] of said.witnesses.entries()) {
    const original = truth.witnesses[i]!;
    const fewer = kind === 'proof' && witnesses.length >= leastWitnesses && witnesses.every((name) => original.includes(name));
    if (!fewer && JSON.stringify(witnesses) !== JSON.stringify(original)) return `verified naming witnesses ${witnesses.join(', ')} where the original names ${original.join(', ')}`;
  }
  if (kind === 'proof' && JSON.stringify(proofStatement(mutant.text)) !== JSON.stringify(proofStatement(original.text))) {
    return 'verified with a serial, status, VRF proof or checkpoint text other than the original\'s';
  }
  return undefined;
}
