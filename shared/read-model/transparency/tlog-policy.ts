/**
 * C2SP tlog-policy: which logs a checkpoint may come from and which witnesses must have cosigned it (docs/audit.md,
 * "Witness policy"). A policy file is lines of `log <vkey> [<url>]`, `witness <name> <vkey> [<url>]`,
 * `group <name> (all|any|<k>) <member>...` and one `quorum <name>` (`none`: no cosignature needed), with blank and `#`
 * lines ignored; a group or the quorum names only what earlier lines defined, a group lists a member at most once,
 * and no two logs or two witnesses share a public key. Witness keys are the Ed25519 `cosignature/v1` type (0x04).
 */
import { readFileSync } from 'node:fs';
import { cosignatureTime, parseCosignerKey } from './cosignature.ts';
import { isBy, NoteError, parseNote, parseVerifierKey, verifies, type Verifier } from './signed-note.ts';

export class PolicyError extends Error {}

/** A witness, or a group of `threshold` of its members. */
type Member = { kind: 'witness'; verifier: Verifier } | { kind: 'group'; threshold: number; members: string[] };

export interface TlogPolicy {
  logs: Verifier[];
  /** Witnesses and groups by name. */
  members: Map<string, Member>;
  /** The name the quorum rests on, or `none`. */
  quorum: string;
}

const NONE = 'none';

function readKey(text: string | undefined, line: number, read: (text: string) => Verifier): Verifier {
  try {
    return read(text ?? '');
  } catch (error) {
    throw new PolicyError(`line ${line}: ${(error as NoteError).message}`);
  }
}

/** The policy of a file's text, or a PolicyError naming the line that breaks a rule. */
export function parsePolicy(text: string): TlogPolicy {
  const logs: Verifier[] = [];
  const members = new Map<string, Member>();
  const keys = new Set<string>();
  let quorum: string | undefined;
  const distinct = (verifier: Verifier, line: number) => {
    const raw = verifier.key.export({ format: 'jwk' }).x as string;
    if (keys.has(raw)) throw new PolicyError(`line ${line}: this public key is already listed`);
    keys.add(raw);
  };
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    // The spec allows tab, newline, printable ASCII and any non-ASCII byte: no other control character.
    if (/[\x00-\x08\x0b-\x1f\x7f]/.test(raw)) throw new PolicyError(`line ${line}: a control character`);
    const words = raw.trim().split(/[ \t]+/).filter((word) => word !== '');
    if (words.length === 0 || words[0]!.startsWith('#')) return;
    const [keyword, ...rest] = words;
    if (keyword === 'log' && (rest.length === 1 || rest.length === 2)) {
      const verifier = readKey(rest[0], line, parseVerifierKey);
      distinct(verifier, line);
      logs.push(verifier);
    } else if (keyword === 'witness' && (rest.length === 2 || rest.length === 3)) {
      const [name = ''] = rest;
      if (name === NONE || members.has(name)) throw new PolicyError(`line ${line}: the name ${name} is ${name === NONE ? 'reserved' : 'defined already'}`);
      const verifier = readKey(rest[1], line, parseCosignerKey);
      distinct(verifier, line);
      members.set(name, { kind: 'witness', verifier });
    } else if (keyword === 'group' && rest.length >= 3) {
      const [name = '', k = '', ...names] = rest;
      if (name === NONE || members.has(name)) throw new PolicyError(`line ${line}: the name ${name} is ${name === NONE ? 'reserved' : 'defined already'}`);
      for (const member of names) if (!members.has(member)) throw new PolicyError(`line ${line}: ${member} is not a witness or group defined above`);
      if (new Set(names).size !== names.length) throw new PolicyError(`line ${line}: a member is listed twice`);
      const threshold = k === 'all' ? names.length : k === 'any' ? 1 : /^[1-9]\d*$/.test(k) ? Number(k) : NaN;
      if (!(threshold >= 1 && threshold <= names.length)) throw new PolicyError(`line ${line}: the threshold must be all, any or a number from 1 to ${names.length}`);
      members.set(name, { kind: 'group', threshold, members: names });
    } else if (keyword === 'quorum' && rest.length === 1) {
      if (quorum !== undefined) throw new PolicyError(`line ${line}: a second quorum line`);
      if (rest[0] !== NONE && !members.has(rest[0]!)) throw new PolicyError(`line ${line}: ${rest[0]} is not a witness or group defined above`);
      quorum = rest[0];
    } else {
      throw new PolicyError(`line ${line}: expected log <vkey> [<url>], witness <name> <vkey> [<url>], group <name> <all|any|k> <names>... or quorum <name>`);
    }
  });
  if (quorum === undefined) throw new PolicyError('the policy has no quorum line');
  return { logs, members, quorum };
}

interface PolicyVerdict {
  /** Whether a log of the policy signed the note (true when the policy lists none: the caller checks the log). */
  logSigned: boolean;
  /** The names of the policy's logs whose signature of the note verifies: the origins the checkpoint may have. */
  signedBy: string[];
  /** The witnesses whose cosignature of the note verifies. */
  cosigners: string[];
  /** Whether those satisfy the quorum. */
  quorum: boolean;
}

/** What `note` shows of `policy`: a log's signature, the cosignatures that verify, whether the quorum holds. */
export function judgeNote(policy: TlogPolicy, note: string): PolicyVerdict {
  const { text, signatures } = parseNote(note);
  const signedBy = policy.logs.filter((log) => signatures.some((signature) => isBy(signature, log) && verifies(text, signature, log))).map((log) => log.name);
  const logSigned = policy.logs.length === 0 || signedBy.length > 0;
  const cosigners = [...policy.members].flatMap(([name, member]) =>
    (member.kind === 'witness' && signatures.some((signature) => cosignatureTime(text, signature, member.verifier) !== undefined) ? [name] : []));
  return { logSigned, signedBy, cosigners, quorum: meets(policy, new Set(cosigners)) };
}

/** Whether the witnesses named in `cosigners` meet the quorum of `policy`. */
function meets(policy: TlogPolicy, cosigners: ReadonlySet<string>): boolean {
  const witnessed = (name: string): boolean => {
    const member = policy.members.get(name)!;
    return member.kind === 'witness' ? cosigners.has(name) : member.members.filter(witnessed).length >= member.threshold;
  };
  return policy.quorum === NONE || witnessed(policy.quorum);
}

/** Beyond this many witnesses under the quorum, disjointQuorums does not try every split (2^(n-1) of them). */
const MOST_WITNESSES_SPLIT = 20;

/**
 * Two disjoint sets of the policy's witnesses that each meet its quorum, or undefined when there are none. Witnesses
 * check only what they saw, so two checkpoints of one size can each meet a quorum that such two sets meet, each shown
 * to one set (docs/audit.md, "Serial index proofs"). The quorum is monotone: two disjoint sets meet it if and only if
 * some set and the rest of the witnesses do, so each split of the witnesses under the quorum is tried (a witness may be
 * a member of several groups, which rules out counting group by group). Throws a PolicyError past
 * MOST_WITNESSES_SPLIT witnesses.
 */
export function disjointQuorums(policy: TlogPolicy): [string[], string[]] | undefined {
  if (policy.quorum === NONE) return [[], []];
  const under = new Set<string>();
  const collect = (name: string) => {
    const member = policy.members.get(name)!;
    if (member.kind === 'witness') under.add(name);
    else member.members.forEach(collect);
  };
  collect(policy.quorum);
  // In the order the file defines them, so the sets named are the same from one run to the next.
  const [first, ...rest] = [...policy.members.keys()].filter((name) => under.has(name));
  if (rest.length >= MOST_WITNESSES_SPLIT) throw new PolicyError(`the quorum rests on ${rest.length + 1} witnesses, more than the ${MOST_WITNESSES_SPLIT} whose splits are tried`);
  // The first witness on one side only: the other splits are these, sides swapped.
  for (let mask = 0; mask < 2 ** rest.length; mask += 1) {
    const one = [first!, ...rest.filter((_, i) => (mask & (1 << i)) !== 0)];
    const other = rest.filter((_, i) => (mask & (1 << i)) === 0);
    if (meets(policy, new Set(one)) && meets(policy, new Set(other))) return [one, other];
  }
  return undefined;
}

/** Throws a PolicyError saying what `note` lacks to meet `policy`. */
export function requirePolicy(policy: TlogPolicy, note: string): PolicyVerdict {
  const verdict = judgeNote(policy, note);
  if (!verdict.logSigned) throw new PolicyError('the checkpoint is signed by no log of the witness policy');
  if (!verdict.quorum) {
    throw new PolicyError(`the checkpoint does not meet the witness policy's quorum (${policy.quorum}): cosigned by ${verdict.cosigners.join(', ') || 'no witness of the policy'}`);
  }
  return verdict;
}

/** What a checkpoint that met `policy` shows, in one line. */
export const witnessedLine = (policy: TlogPolicy, { cosigners }: PolicyVerdict): string =>
  `witnesses: the checkpoint is cosigned by ${cosigners.join(', ') || 'no witness'}, as the policy's quorum (${policy.quorum}) requires`;

/** The policy in `file`, or a PolicyError saying why it cannot be had. */
export function readPolicyFile(file: string): TlogPolicy {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new PolicyError(`cannot read the witness policy ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  try {
    return parsePolicy(text);
  } catch (error) {
    throw new PolicyError(`the witness policy ${file}: ${(error as Error).message}`);
  }
}
