/**
 * A serial's status at a checkpoint, as one offline file (issue 45, item 3; in the spirit of C2SP tlog-proof): the
 * answer (serial, status, VRF proof, index proof) then, after a blank line, the signed checkpoint note with its
 * witnesses' cosignatures. The checkpoint commits the serial index in an extension line
 * (shared/read-model/transparency/serial-index.ts), so the file is checked with the log's verifier key and a witness policy
 * alone: the log signed the checkpoint, the policy's quorum cosigned it, and the answer is proved under the index
 * root and VRF key the checkpoint commits. That no other status of the serial holds at that checkpoint size rests on
 * more: the index line is not under the tree's root, which is all a C2SP witness must check at a size it holds
 * (test/interop/witness-interop.test.ts: litewitness cosigns the same tree with another index line). It holds under
 * an index policy, a second tlog-policy the reader gives, naming witnesses held to cosign one body per size (as
 * services/witness/witness.ts does), whose quorum no two disjoint sets of witnesses meet (docs/audit.md, "Serial
 * index proofs").
 *
 *     watchcat/serial-index-proof/v1
 *     serial <serial>
 *     status <AUTHENTIC|STOLEN|NOT_FOUND>
 *     vrf <base64 VRF proof>
 *     index <base64 index proof>
 *
 *     <checkpoint note>
 *
 * Both proofs are in canonical standard base64 (canonical-base64.ts): one proof, one file.
 */
import { SERIAL_PATTERN } from '../../../shared/events/common.ts';
import { openCheckpoint } from '../../../shared/read-model/transparency/checkpoint.ts';
import { indexCommitmentOf, verifyIndexAnswer, type IndexAnswer, type IndexStatus } from '../../../shared/read-model/transparency/serial-index.ts';
import { disjointQuorums, PolicyError, requirePolicy, type TlogPolicy } from '../../../shared/read-model/transparency/tlog-policy.ts';
import { isCanonicalBase64 } from './canonical-base64.ts';

export const INDEX_PROOF_HEADER = 'watchcat/serial-index-proof/v1';
const STATUSES: readonly string[] = ['AUTHENTIC', 'STOLEN', 'NOT_FOUND'];
const SERIAL = new RegExp(SERIAL_PATTERN);

/** The file of `answer` at the checkpoint `note` (signed, cosigned), whose index root the answer is proved under. */
export const indexProofFile = (answer: IndexAnswer, note: string): string =>
  `${INDEX_PROOF_HEADER}\nserial ${answer.serial}\nstatus ${answer.status}\nvrf ${answer.vrf_proof}\nindex ${answer.index_proof}\n\n${note}`;

interface IndexProofVerdict {
  readonly size: number;
  readonly origin: string;
  readonly serial: string;
  readonly status: IndexStatus;
  /** The policy's witnesses that cosigned the checkpoint. */
  readonly cosigners: readonly string[];
  /** With an index policy: its quorum and those of its witnesses that cosigned the checkpoint. */
  readonly unique?: { readonly quorum: string; readonly cosigners: readonly string[] };
}

/** The answer and the checkpoint note of a file, or an Error naming what is malformed. */
function readFile(text: string): { answer: IndexAnswer; note: string } {
  const split = text.indexOf('\n\n');
  if (!text.startsWith(`${INDEX_PROOF_HEADER}\n`) || split < 0) throw new Error(`not a serial index proof: it does not start with ${INDEX_PROOF_HEADER} and a blank line after the answer`);
  const lines = text.slice(INDEX_PROOF_HEADER.length + 1, split).split('\n');
  const field = (name: string, at: number): string => {
    const line = lines[at] ?? '';
    if (!line.startsWith(`${name} `)) throw new Error(`not a serial index proof: line ${at + 2} is not "${name} ..."`);
    return line.slice(name.length + 1);
  };
  const [serial, status, vrf, index] = [field('serial', 0), field('status', 1), field('vrf', 2), field('index', 3)];
  if (lines.length !== 4) throw new Error('not a serial index proof: the answer has more than four lines');
  for (const [name, value, at] of [['vrf', vrf, 4], ['index', index, 5]] as const) {
    if (!isCanonicalBase64(value)) throw new Error(`not a serial index proof: line ${at} (${name}) is not canonical base64`);
  }
  if (!STATUSES.includes(status)) throw new Error(`not a serial index proof: status ${status}`);
  // Serials match case-insensitively, but the VRF keys the index by the exact bytes: a serial spelled otherwise than
  // its canonical form (upper case, A-Z 0-9 -) is another key, which the index proves absent even when the serial is stolen.
  if (!SERIAL.test(serial)) throw new Error(`not a serial index proof: ${JSON.stringify(serial)} is not a serial number in its canonical form (4 to 32 of A-Z, 0-9, -)`);
  return { answer: { serial, status: status as IndexStatus, vrf_proof: vrf, index_proof: index }, note: text.slice(split + 2) };
}

/**
 * Checks a serial index proof file against the log's verifier key and a witness policy, and, given one, an index
 * policy (its witnesses held to cosign one checkpoint body per size): the verdict, or an Error naming what does not
 * hold.
 */
export function verifyIndexProof(text: string, logKey: string, policy: TlogPolicy, indexPolicy?: TlogPolicy): IndexProofVerdict {
  const { answer, note } = readFile(text);
  const checkpoint = openCheckpoint(note, logKey);
  const { cosigners } = requirePolicy(policy, note);
  let unique: IndexProofVerdict['unique'];
  if (indexPolicy !== undefined) {
    const split = disjointQuorums(indexPolicy);
    if (split !== undefined) {
      throw new PolicyError(`the index policy's quorum (${indexPolicy.quorum}) can be met by two disjoint sets of witnesses (${split.map((side) => side.join(', ') || 'none').join('; ')}): `
        + 'each could be shown a checkpoint of this size committing another index');
    }
    try {
      unique = { quorum: indexPolicy.quorum, cosigners: requirePolicy(indexPolicy, note).cosigners };
    } catch (error) {
      throw new PolicyError(`the index policy: ${(error as Error).message}`);
    }
  }
  const commitment = indexCommitmentOf(checkpoint);
  if (commitment === undefined) throw new Error(`the checkpoint of ${checkpoint.size} leaves commits no serial index`);
  if (!verifyIndexAnswer(commitment.vrfPublicKey, commitment.root, answer)) {
    throw new Error(`the proofs do not show serial ${answer.serial} ${answer.status} in the serial index the checkpoint of ${checkpoint.size} leaves commits`);
  }
  return { size: checkpoint.size, origin: checkpoint.origin, serial: answer.serial, status: answer.status, cosigners, ...(unique ? { unique } : {}) };
}

/** The verdict in the words of `watchcat receipt verify`. */
export const indexProofLine = ({ size, serial, status, cosigners }: IndexProofVerdict): string =>
  `at checkpoint ${size}, cosigned by ${cosigners.length} witness${cosigners.length === 1 ? '' : 'es'}${cosigners.length > 0 ? ` (${cosigners.join(', ')})` : ''}, serial ${serial} was ${status}`;

/** Whether the verdict shows the status to be the serial's only one at that checkpoint size, in the command's words. */
export const uniquenessLine = ({ size, serial, unique }: IndexProofVerdict): string => (unique
  ? `unique: no other status of ${serial} at checkpoint ${size} can meet the index policy's quorum (${unique.quorum}, cosigned here by `
    + `${unique.cosigners.join(', ') || 'no witness'}), as long as one witness of every quorum of it cosigns one checkpoint body per tree size: `
    + 'no two disjoint sets of its witnesses meet it'
  : `unique: not shown: witnesses need only check a checkpoint's size and root (C2SP tlog-witness), not its serial index line, so `
    + `another checkpoint of ${size} leaves committing another index may be cosigned too; --index-policy names witnesses held to `
    + 'cosign one checkpoint body per tree size (docs/audit.md, "Serial index proofs")');
