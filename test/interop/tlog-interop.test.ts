/**
 * Interoperability of the transparency log's math and notes with Go's golang.org/x/mod/sumdb/tlog and note: Go builds
 * its own tree from the same entries, and its roots and proofs are the expected values; Go also checks the proofs of
 * our in-memory tree against its roots and opens notes our signing code signs with the verifier key it gives. What
 * the service serves over HTTP (checkpoint, key, proofs, tiles) is handed to Go in tlog-served.test.ts.
 */
import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { checkpointBody } from '../../shared/read-model/transparency/checkpoint.ts';
import { MemoryTree } from '../../shared/read-model/transparency/memory-tree.ts';
import { leafHash, verifyConsistency, verifyInclusion } from '../../shared/read-model/transparency/merkle.ts';
import { NoteError, openNote, signNote, verifierKey } from '../../shared/read-model/transparency/signed-note.ts';
import { goSignerKey } from '../support/note-keys.ts';
import { askGo, buildGoTlog, type GoAnswer, type GoRequest } from '../support/go-tlog.ts';
import { cannotRun, registerLegSuite } from '../support/legs.ts';

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const unb64 = (text: string) => Buffer.from(text, 'base64');

// Entries of many lengths, the empty one included; 67 leaves reach every shape of split up to 64.
const ENTRIES = Array.from({ length: 67 }, (_, i) => Buffer.from(Array.from({ length: i % 13 }, (_, j) => (i * 31 + j) % 256)));
const SIZES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 67];
const ORIGIN = 'watchcat.example/watchcat/events';

describe('transparency log: interoperability with Go\'s sumdb/tlog and note', function () {
  registerLegSuite('Go', this);
  this.timeout(120_000);

  const tree = new MemoryTree();
  for (const entry of ENTRIES) tree.append(entry);
  const inclusions = SIZES.flatMap((size) => Array.from({ length: size }, (_, index) => ({ index, size })));
  const consistencies = SIZES.flatMap((to) => SIZES.filter((from) => from <= to).map((from) => ({ from, to })));
  const { privateKey } = generateKeyPairSync('ed25519');
  const other = generateKeyPairSync('ed25519').privateKey;
  const body = checkpointBody({ origin: ORIGIN, size: 67, root: tree.root(67) });
  const signed = signNote(body, ORIGIN, privateKey);
  // During a rotation: the current key, then the outgoing one.
  const third = generateKeyPairSync('ed25519').privateKey;
  const coSigned = signNote(body, ORIGIN, privateKey, other);
  const tamperedProof = tree.inclusion(5, 67).map(b64);
  tamperedProof[2] = b64(Buffer.alloc(32, 7));
  let go: GoAnswer;

  before(async function () {
    const built = await buildGoTlog();
    if ('why' in built) return cannotRun(this, 'Go', built.why);
    const request: GoRequest = {
      entries: ENTRIES.map(b64),
      inclusion: [...inclusions.map(({ index, size }) => ({ index, size, proof: tree.inclusion(index, size).map(b64) })),
        { index: 5, size: 67, proof: tamperedProof }],
      consistency: consistencies.map(({ from, to }) => ({ from, to, proof: tree.consistency(from, to).map(b64) })),
      notes: [
        signed,
        signed.replace('\n67\n', '\n68\n'),
        signNote(body, ORIGIN, other),
      ],
      verifier_key: verifierKey(ORIGIN, privateKey),
      tiles: [],
      sign_text: body,
      keyed_notes: [privateKey, other, third].map((key) => ({ note: coSigned, verifier_key: verifierKey(ORIGIN, key) })),
      sign_keys: [goSignerKey(ORIGIN, privateKey), goSignerKey(ORIGIN, other)],
    };
    go = await askGo(built.program, request);
  });

  it('computes the same root as Go for every tree size from 1 to 67', function () {
    expect(ENTRIES.map((_, i) => b64(tree.root(i + 1)))).to.deep.equal(go.roots);
  });

  it('gives Go\'s inclusion proofs, and Go\'s CheckRecord accepts ours, for every leaf of 19 tree sizes', function () {
    inclusions.forEach(({ index, size }, i) => {
      const answer = go.inclusion[i]!;
      expect(answer.error, `leaf ${index} of ${size}`).to.equal('');
      expect(tree.inclusion(index, size).map(b64), `leaf ${index} of ${size}`).to.deep.equal(answer.go_proof);
    });
  });

  it('accepts Go\'s inclusion proofs against Go\'s roots, and Go refuses a proof with one hash changed', function () {
    inclusions.forEach(({ index, size }, i) => {
      const ok = verifyInclusion(index, size, leafHash(ENTRIES[index]!), go.inclusion[i]!.go_proof.map(unb64), unb64(go.roots[size - 1]!));
      expect(ok, `leaf ${index} of ${size}`).to.equal(true);
    });
    expect(go.inclusion.at(-1)!.error).to.not.equal('');
  });

  it('gives Go\'s consistency proofs, and Go\'s CheckTree accepts ours, between every pair of those sizes', function () {
    consistencies.forEach(({ from, to }, i) => {
      const answer = go.consistency[i]!;
      expect(answer.error, `${from} to ${to}`).to.equal('');
      expect(tree.consistency(from, to).map(b64), `${from} to ${to}`).to.deep.equal(answer.go_proof);
      const ok = verifyConsistency(from, to, unb64(go.roots[from - 1]!), unb64(go.roots[to - 1]!), answer.go_proof.map(unb64));
      expect(ok, `ours accepts Go's proof from ${from} to ${to}`).to.equal(true);
    });
  });

  it('signs checkpoints (signNote) that Go\'s note.Open accepts with the verifier key verifierKey gives, and no altered one', function () {
    const [good, altered, foreign] = go.notes;
    expect(good).to.deep.include({ error: '', origin: ORIGIN, size: 67, root: go.roots[66], root_matches: true });
    expect(altered!.error).to.match(/invalid signature/);
    expect(foreign!.error).to.equal('note has no verifiable signatures');
  });

  it('co-signs a checkpoint byte for byte as Go\'s note.Sign does with the same two keys in the same order', function () {
    expect(coSigned).to.equal(go.go_signed);
  });

  it('co-signs checkpoints that Go\'s note.Open accepts with either signer\'s verifier key, and not with a third', function () {
    const [current, previous, foreign] = go.keyed_notes;
    for (const [which, opened] of [['current', current], ['previous', previous]] as const) {
      expect(opened, which).to.deep.include({ error: '', origin: ORIGIN, size: 67, root: go.roots[66], root_matches: true, verified: 1, unverified: 1 });
    }
    expect(foreign!.error).to.equal('note has no verifiable signatures');
  });

  it('opens the checkpoint Go\'s note.Sign signed with Go\'s verifier key, and refuses it altered', function () {
    expect(openNote(go.go_note, go.go_verifier_key)).to.equal(body);
    expect(() => openNote(go.go_note.replace('\n67\n', '\n68\n'), go.go_verifier_key)).to.throw(NoteError, /does not match/);
    expect(() => openNote(go.go_note, verifierKey(ORIGIN, privateKey))).to.throw(NoteError, /no signature of/);
  });
});
