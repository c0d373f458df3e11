/**
 * A serial's status at a checkpoint as one offline file (services/audit/receipt/index-proof.ts, issue 45 item 3),
 * checked with the log's verifier key and a witness policy (2 of 2 witnesses) alone. A checkpoint of 12 entries
 * commits a serial index in its extension line, is signed by the log and cosigned by both witnesses: the file of each
 * serial's answer holds and says "at checkpoint 12, cosigned by 2 witnesses, serial S was STATUS"; a second file for
 * the same serial at the same checkpoint with another status (the true proofs, or another serial's) does not; nor a
 * file whose checkpoint lacks a cosignature, is signed by another key, commits another index root or none, or whose
 * status or proofs were altered. A malformed file is refused with what is malformed (docs/audit.md: `watchcat receipt
 * verify` exits 1 saying which): no header or no blank line before the checkpoint, a line of the answer that is not
 * the field the format puts there (named with its line number, the header being line 1), a missing or a fifth line,
 * a status of none of the three. A serial spelled otherwise than its canonical form (rg-1003 for the stolen RG-1003) is
 * refused, though the index does prove that spelling absent. That the status is the only one at checkpoint 12 (no
 * other body of that tree, with another index, cosigned) is said only under an index policy the checkpoint meets and
 * no two disjoint sets of witnesses do; an index policy `any` of two is refused, as is one the checkpoint misses.
 */
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { expect } from 'chai';
import { INDEX_PROOF_HEADER, indexProofFile, indexProofLine, uniquenessLine, verifyIndexProof } from '../../../services/audit/receipt/index-proof.ts';
import { checkpointBody } from '../../../shared/read-model/transparency/checkpoint.ts';
import { cosign, cosignerKey } from '../../../shared/read-model/transparency/cosignature.ts';
import { MemoryTree } from '../../../shared/read-model/transparency/memory-tree.ts';
import { indexExtension, SerialIndex, verifyIndexAnswer, type IndexAnswer } from '../../../shared/read-model/transparency/serial-index.ts';
import { signNote, verifierKey } from '../../../shared/read-model/transparency/signed-note.ts';
import { parsePolicy } from '../../../shared/read-model/transparency/tlog-policy.ts';
import { vrfKey } from '../../../shared/read-model/transparency/vrf.ts';

const ORIGIN = 'watch.example/watchcat/events';
const ed25519 = () => generateKeyPairSync('ed25519').privateKey;

describe('serial index proof files: checked with the log key and the witness policy alone', function () {
  const logKey = ed25519();
  const witnesses: [string, KeyObject][] = [['witness.example/w1', ed25519()], ['witness.example/w2', ed25519()]];
  const policyText = [
    `log ${verifierKey(ORIGIN, logKey)}`,
    ...witnesses.map(([name, key]) => `witness W${name.slice(-1)} ${cosignerKey(name, key)}`),
    'group both all W1 W2',
    'quorum both',
  ].join('\n');
  const policy = parsePolicy(policyText);
  const vrf = vrfKey(randomBytes(32));
  const index = new SerialIndex(vrf);
  for (let i = 0; i < 10; i += 1) index.set(`RG-${1000 + i}`, 'AUTHENTIC');
  index.set('RG-1003', 'STOLEN');
  const tree = new MemoryTree();
  for (let i = 0; i < 12; i += 1) tree.append(`event-${i}`);

  /** The checkpoint note of 12 entries committing `root`, signed by `key`, cosigned by `cosigners`. */
  function note(root: Uint8Array | undefined, key = logKey, cosigners = witnesses, origin = ORIGIN): string {
    const body = checkpointBody({ origin, size: 12, root: tree.root(), extensions: root ? [indexExtension({ root, vrfPublicKey: vrf.publicKey })] : [] });
    return `${signNote(body, ORIGIN, key)}${cosigners.map(([name, witness]) => cosign(body, name, witness, 1_700_000_000)).join('')}`;
  }
  const checkpoint = note(index.root());
  const logVerifier = verifierKey(ORIGIN, logKey);

  it('holds for each serial\'s true answer and says what it proves', function () {
    for (const [serial, status] of [['RG-1000', 'AUTHENTIC'], ['RG-1003', 'STOLEN'], ['RG-4242', 'NOT_FOUND']] as const) {
      const answer = index.answer(serial);
      expect(answer.status).to.equal(status);
      const verdict = verifyIndexProof(indexProofFile(answer, checkpoint), logVerifier, policy);
      expect(indexProofLine(verdict)).to.equal(`at checkpoint 12, cosigned by 2 witnesses (W1, W2), serial ${serial} was ${status}`);
    }
  });

  it('refuses a second answer for a serial at the same checkpoint', function () {
    for (const serial of ['RG-1000', 'RG-1003', 'RG-4242']) {
      const truth = index.answer(serial);
      const others: IndexAnswer[] = [
        ...(['AUTHENTIC', 'STOLEN', 'NOT_FOUND'] as const).filter((status) => status !== truth.status).map((status) => ({ ...truth, status })),
        ...['RG-1000', 'RG-1003', 'RG-4242'].filter((donor) => donor !== serial).map((donor) => ({ ...index.answer(donor), serial })),
      ];
      for (const other of others) {
        expect(() => verifyIndexProof(indexProofFile(other, checkpoint), logVerifier, policy), `${serial} ${other.status}`).to.throw(/do not show/);
      }
    }
  });

  it('refuses a serial not in its canonical form: another VRF input, which the index proves absent', function () {
    // Serials are matched case-insensitively (docs/api.md): rg-1003 is RG-1003, stolen. Whoever holds the VRF key can
    // prove the lower-case spelling absent under the very root that proves RG-1003 STOLEN.
    for (const variant of ['rg-1003', 'Rg-1003', ' RG-1003', 'RG-1003 ', 'RG\u20111003']) {
      const answer = index.answer(variant);
      expect(answer.status, variant).to.equal('NOT_FOUND');
      expect(verifyIndexAnswer(vrf.publicKey, index.root(), answer), JSON.stringify(variant)).to.equal(false);
      expect(() => verifyIndexProof(indexProofFile(answer, checkpoint), logVerifier, policy), JSON.stringify(variant)).to.throw(/not a serial number/);
    }
  });

  it('refuses a checkpoint short of the quorum, signed by another key, committing another root or none', function () {
    const answer = index.answer('RG-1003');
    const check = (file: string) => () => verifyIndexProof(file, logVerifier, policy);
    expect(check(indexProofFile(answer, note(index.root(), logKey, witnesses.slice(0, 1))))).to.throw(/quorum/);
    expect(check(indexProofFile(answer, note(index.root(), ed25519())))).to.throw();
    expect(check(indexProofFile(answer, note(randomBytes(32))))).to.throw(/do not show/);
    expect(check(indexProofFile(answer, note(undefined)))).to.throw(/commits no serial index/);
  });

  it('refuses a checkpoint whose origin is not the log key\'s name, though that key signed it and the quorum cosigned it', function () {
    const file = indexProofFile(index.answer('RG-1003'), note(index.root(), logKey, witnesses, 'other.example/log'));
    expect(() => verifyIndexProof(file, logVerifier, policy)).to.throw(`the checkpoint's origin other.example/log is not the name of the log key that signed it (${ORIGIN})`);
  });

  it('refuses a file altered in its status, its proofs or its checkpoint', function () {
    const file = indexProofFile(index.answer('RG-1003'), checkpoint);
    const altered = [
      file.replace('status STOLEN', 'status AUTHENTIC'),
      file.replace(/^vrf (.)/m, (_, c: string) => `vrf ${c === 'A' ? 'B' : 'A'}`),
      // A character of the last node's hash (the proof ends with it): a sibling's label is not bound (prefix-tree.ts).
      file.replace(/^(index .*)(.)(.{3})$/m, (_, head: string, c: string, tail: string) => `${head}${c === 'A' ? 'B' : 'A'}${tail}`),
      file.replace(`${ORIGIN}\n12\n`, `${ORIGIN}\n13\n`),
      file.replace('watchcat/serial-index/v1 ', 'watchcat/serial-index/v1  '),
      file.replace('\n\n', '\n'),
    ];
    for (const [i, text] of altered.entries()) {
      expect(text, `alteration ${i} changed the file`).to.not.equal(file);
      expect(() => verifyIndexProof(text, logVerifier, policy), `alteration ${i}`).to.throw();
    }
  });

  it('refuses a VRF or index proof in any spelling but canonical base64, naming the line, though Node decodes it to the same bytes', function () {
    const answer = index.answer('RG-1003');
    for (const [field, line] of [['vrf_proof', 4], ['index_proof', 5]] as const) {
      const value = answer[field];
      const bytes = Buffer.from(value, 'base64');
      const last = value.replace(/=+$/, '').slice(-1);
      const spellings: Record<string, string> = {
        'with a space inside': `${value.slice(0, 20)} ${value.slice(20)}`,
        'in URL-safe base64': bytes.toString('base64url'),
      };
      // Padded (the VRF proof's 80 bytes always are; the index proof's length varies), the padding can go, and the
      // last character's unused low bits can be set: another character, the same bytes.
      if (value.endsWith('=')) {
        spellings['without its padding'] = value.replace(/=+$/, '');
        spellings['with unused bits set'] = value.replace(/[^=](?==*$)/, String.fromCharCode(last.charCodeAt(0) + 1));
      } else expect(field, 'an 80-byte VRF proof is padded').to.equal('index_proof');
      for (const [what, spelling] of Object.entries(spellings)) {
        if (what === 'in URL-safe base64' && !/[+/=]/.test(value)) continue;
        expect(spelling, `${field} ${what}`).to.not.equal(value);
        expect(Buffer.from(spelling, 'base64').equals(bytes), `${field} ${what}: the same bytes to Node`).to.equal(true);
        const file = indexProofFile({ ...answer, [field]: spelling }, checkpoint);
        expect(() => verifyIndexProof(file, logVerifier, policy), `${field} ${what}`)
          .to.throw(`not a serial index proof: line ${line} (${field === 'vrf_proof' ? 'vrf' : 'index'}) is not canonical base64`);
      }
    }
  });

  it('refuses a malformed file, saying what is malformed', function () {
    const file = indexProofFile(index.answer('RG-1003'), checkpoint);
    const answerLines = file.slice(0, file.indexOf('\n\n'));
    const malformed: [string, string, string][] = [
      ['another header', file.replace(INDEX_PROOF_HEADER, 'watchcat/serial-index-proof/v2'),
        'not a serial index proof: it does not start with watchcat/serial-index-proof/v1 and a blank line after the answer'],
      ['no blank line: the answer alone', answerLines,
        'not a serial index proof: it does not start with watchcat/serial-index-proof/v1 and a blank line after the answer'],
      ['line 2 not the serial', file.replace('\nserial ', '\nSerial '), 'not a serial index proof: line 2 is not "serial ..."'],
      ['line 3 not the status', file.replace('\nstatus ', '\nstatus:'), 'not a serial index proof: line 3 is not "status ..."'],
      ['line 4 not the VRF proof', file.replace('\nvrf ', '\nindex '), 'not a serial index proof: line 4 is not "vrf ..."'],
      ['no line 5', file.replace(/\nindex [^\n]*/, ''), 'not a serial index proof: line 5 is not "index ..."'],
      ['a sixth line', file.replace(/(\nindex [^\n]*)/, '$1\nnote stolen in Geneva'), 'not a serial index proof: the answer has more than four lines'],
      ['a status of none of the three', file.replace('status STOLEN', 'status LOST'), 'not a serial index proof: status LOST'],
    ];
    for (const [what, text, message] of malformed) {
      expect(text, `${what} changed the file`).to.not.equal(file);
      expect(() => verifyIndexProof(text, logVerifier, policy), what).to.throw(message);
    }
  });

  it('says the status is the only one at its checkpoint only under an index policy no two disjoint sets of witnesses meet', function () {
    const file = indexProofFile(index.answer('RG-1003'), checkpoint);
    expect(uniquenessLine(verifyIndexProof(file, logVerifier, policy))).to.match(/^unique: not shown: .*need only check a checkpoint's size and root/);
    expect(uniquenessLine(verifyIndexProof(file, logVerifier, policy, policy))).to.equal(
      'unique: no other status of RG-1003 at checkpoint 12 can meet the index policy\'s quorum (both, cosigned here by W1, W2), '
      + 'as long as one witness of every quorum of it cosigns one checkpoint body per tree size: no two disjoint sets of its witnesses meet it');
    const either = parsePolicy(policyText.replace('group both all W1 W2\nquorum both', 'group either any W1 W2\nquorum either'));
    expect(() => verifyIndexProof(file, logVerifier, policy, either)).to.throw(/the index policy's quorum \(either\) can be met by two disjoint sets of witnesses \(W1; W2\)/);
    const w2 = note(index.root(), logKey, witnesses.slice(1));
    expect(() => verifyIndexProof(indexProofFile(index.answer('RG-1003'), w2), logVerifier, parsePolicy(`log ${logVerifier}\nquorum none`), policy)).to.throw(/the index policy: .*quorum \(both\)/);
  });
});
