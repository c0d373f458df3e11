/**
 * What signed-note.ts refuses to sign or read, by C2SP signed-note (https://c2sp.org/signed-note) and Go's
 * golang.org/x/mod/sumdb/note: a key that is not Ed25519, a signer name that is empty, a text that does not end in
 * a newline. Signing and verifying well-formed notes is proved against Go in test/interop/tlog-interop.test.ts.
 */
import { expect } from 'chai';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { keyId, NoteError, noteText, openNote, parseVerifierKey, rawPublicKey, signNote, verifierKey } from '../../../shared/read-model/transparency/signed-note.ts';

const ed25519 = generateKeyPairSync('ed25519');

describe('signed notes: what is refused', function () {
  it('refuses a key that is not Ed25519, even one whose JWK holds a 32-byte x (P-256, X25519)', function () {
    for (const [what, key] of [
      ['P-256 public', generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey],
      ['X25519 private', generateKeyPairSync('x25519').privateKey],
    ] as const) {
      expect(() => rawPublicKey(key), what).to.throw(NoteError);
    }
    expect(rawPublicKey(ed25519.privateKey).equals(rawPublicKey(ed25519.publicKey))).to.equal(true);
  });

  it('refuses an empty signer name, for a key id and in a verifier key', function () {
    expect(() => keyId('', rawPublicKey(ed25519.publicKey))).to.throw(NoteError);
    // The key id the spec gives an empty name (SHA-256 of "" || "\n" || 0x01 || key, first 4 bytes), computed here.
    const typed = Buffer.concat([Buffer.of(0x01), rawPublicKey(ed25519.publicKey)]);
    const id = createHash('sha256').update('\n').update(typed).digest().subarray(0, 4).toString('hex');
    expect(() => parseVerifierKey(`+${id}+${typed.toString('base64')}`)).to.throw(NoteError);
  });

  it('refuses to sign a text that does not end in a newline', function () {
    expect(() => signNote('example.com/log\n1\nroot', 'example.com/log', ed25519.privateKey)).to.throw(NoteError);
  });

  it('reads a note of 100 signatures and refuses one of 101, as Go\'s note.Open does', function () {
    const note = signNote('example.com/log\n1\n', 'example.com/log', ed25519.privateKey);
    const line = note.slice(note.lastIndexOf('\n\n') + 2);
    const key = verifierKey('example.com/log', ed25519.publicKey);
    expect(openNote(`${note}${line.repeat(99)}`, key)).to.equal('example.com/log\n1\n');
    expect(() => openNote(`${note}${line.repeat(100)}`, key)).to.throw(NoteError, 'more than 100 signatures');
  });
});

describe('signed notes: the text', function () {
  it('is all before the last blank line, as Go\'s note.Open cuts it, even a text that holds a blank line', function () {
    const text = 'example.com/log\n1\n\nafter a blank line\n';
    const note = signNote(text, 'example.com/log', ed25519.privateKey);
    expect(noteText(note)).to.equal(text);
    expect(openNote(note, verifierKey('example.com/log', ed25519.publicKey)), 'the text the signature covers').to.equal(text);
    expect(() => noteText('example.com/log\n1\n'), 'no blank line, no signature').to.throw(NoteError);
  });
});
