/**
 * Which keys a monitor of the log trusts (services/audit/log-key-trust.ts): a checkpoint opens when a trusted key
 * signed it; a co-signer is trusted from then on only when the service's history lists its verifier key and its
 * signature verifies, and the command leaves out the keys the history marks compromised; a trusted key whose
 * signature does not match fails the checkpoint. A trusted key the history marks compromised is dropped, and a key
 * history that cannot be read fails the check. Notes and keys are written here from the C2SP signed-note format, not
 * by the code under test.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { listedKeys, openTrusted, readKeyHistory, withoutCompromised } from '../../../services/audit/log-key-trust.ts';
import { watchcat } from '../../audit/support/watchcat-run.ts';
import { specVerifierKey } from '../../support/note-keys.ts';

const ORIGIN = 'watch.example/watchcat/events';
const TEXT = `${ORIGIN}\n5\n${Buffer.alloc(32, 9).toString('base64')}\n`;

const line = (key: KeyObject, signature = sign(null, Buffer.from(TEXT), key)) =>
  `\u2014 ${ORIGIN} ${Buffer.concat([Buffer.from(specVerifierKey(ORIGIN, key).split('+')[1]!, 'hex'), signature]).toString('base64')}\n`;
const noteOf = (...lines: string[]) => `${TEXT}\n${lines.join('')}`;

describe('audit log watch: the keys a monitor trusts', () => {
  const [old, next, stranger] = [0, 1, 2].map(() => generateKeyPairSync('ed25519').privateKey) as [KeyObject, KeyObject, KeyObject];
  const [oldKey, nextKey] = [specVerifierKey(ORIGIN, old), specVerifierKey(ORIGIN, next)];
  const listed = (...keys: string[]) => async () => keys;

  it('learns a co-signer that the history lists and whose signature verifies', async () => {
    expect(await openTrusted(noteOf(line(old), line(next)), [oldKey], listed(oldKey, nextKey))).to.deep.equal({ text: TEXT, learned: [nextKey], signers: [ORIGIN] });
  });

  it('does not learn a co-signer the history does not list, nor one whose signature does not verify', async () => {
    expect((await openTrusted(noteOf(line(old), line(next)), [oldKey], listed(oldKey))).learned).to.deep.equal([]);
    expect((await openTrusted(noteOf(line(old), line(next, Buffer.alloc(64, 1))), [oldKey], listed(oldKey, nextKey))).learned).to.deep.equal([]);
    expect((await openTrusted(noteOf(line(old), line(next)), [oldKey], listed(oldKey, specVerifierKey(ORIGIN, stranger)))).learned).to.deep.equal([]);
  });

  it('learns a listed co-signer even when the note also carries a signature by a key it does not know', async () => {
    expect((await openTrusted(noteOf(line(old), line(next), line(stranger)), [oldKey], listed(oldKey, nextKey))).learned).to.deep.equal([nextKey]);
  });

  it('does not ask for the history when every signature is by a trusted key', async () => {
    const never = async (): Promise<string[]> => { throw new Error('asked'); };
    expect(await openTrusted(noteOf(line(next)), [oldKey, nextKey], never)).to.deep.equal({ text: TEXT, learned: [], signers: [ORIGIN] });
  });

  const id = (key: KeyObject) => specVerifierKey(ORIGIN, key).split('+')[1];

  it('fails a note signed by no trusted key, naming the keys it carries, and one whose trusted signature does not match', async () => {
    const refusal = (note: string) => openTrusted(note, [oldKey], listed(nextKey)).then(() => '', (error: Error) => error.message);
    expect(await refusal(noteOf(line(next)))).to.equal(
      `signed by no key this monitor trusts: it carries ${ORIGIN} key id ${id(next)}; trusted: ${ORIGIN} key id ${id(old)}`);
    expect(await refusal(noteOf(line(old, Buffer.alloc(64, 1)), line(next)))).to.equal(
      `the signature of ${ORIGIN} key id ${id(old)} does not match the note`);
  });

  it('names the keys dropped as compromised when no trusted key signed the note, and says when none is left trusted', async () => {
    const refusal = (trusted: string[], dropped: string[]) =>
      openTrusted(noteOf(line(old), line(stranger)), trusted, listed(nextKey), dropped).then(() => '', (error: Error) => error.message);
    const carried = `it carries ${ORIGIN} key id ${id(old)}, ${ORIGIN} key id ${id(stranger)}`;
    expect(await refusal([], [oldKey])).to.equal(
      `signed by no key this monitor trusts: ${carried}; trusted: none; dropped as compromised: ${ORIGIN} key id ${id(old)}`);
    expect(await refusal([nextKey], [])).to.equal(`signed by no key this monitor trusts: ${carried}; trusted: ${ORIGIN} key id ${id(next)}`);
  });

  const revoked = { revoked_at: 1, reason: 'compromised' };

  it('drops the trusted keys the history marks compromised, under any name, and keeps the others, listed or not', () => {
    const strangerKey = specVerifierKey(ORIGIN, stranger);
    const renamed = specVerifierKey('elsewhere.example/log', old);
    expect(withoutCompromised([oldKey, nextKey, strangerKey], [{ verifier_key: renamed, revoked }, { verifier_key: nextKey }]))
      .to.deep.equal({ kept: [nextKey, strangerKey], dropped: [oldKey] });
    expect(withoutCompromised([oldKey, nextKey], [{ verifier_key: oldKey, revoked }, { verifier_key: nextKey, revoked }]))
      .to.deep.equal({ kept: [], dropped: [oldKey, nextKey] });
    expect(withoutCompromised([oldKey], [])).to.deep.equal({ kept: [oldKey], dropped: [] });
    // A verifier key served with a line's end (which parseVerifierKey accepts) is the same key.
    expect(withoutCompromised([oldKey], [{ verifier_key: `${oldKey}\n`, revoked }])).to.deep.equal({ kept: [], dropped: [oldKey] });
  });

  it('reads a key history in the shape /.well-known/transparency/keys serves, and lists for learning only the keys not marked compromised', () => {
    const body = JSON.stringify({ keys: [{ verifier_key: oldKey, kid: 'a', nbf: 1, exp: 2, revoked }, { verifier_key: nextKey, kid: 'b', nbf: 2 }] });
    const history = readKeyHistory(body);
    expect(history).to.deep.equal([{ verifier_key: oldKey, revoked }, { verifier_key: nextKey }]);
    expect(listedKeys(history!)).to.deep.equal([nextKey]);
    for (const unread of ['', 'null', '[]', '{"keys": null}', '{"keys": [null]}', `{"keys": [{"verifier_key": 1}]}`, `{"keys": [{"verifier_key": "${oldKey}x"}]}`, `{"keys": [{"verifier_key": "${oldKey}"}, {"verifier_key": 1}]}`]) {
      expect(readKeyHistory(unread), unread).to.equal(undefined);
    }
  });

  /** `audit log watch --once --key oldKey` against a server answering `pages` (404 elsewhere); answers its run and the keys it kept. */
  const watchPages = async (pages: Record<string, string>) => {
    const server = createServer((request, response) => response.writeHead(pages[request.url!] ? 200 : 404).end(pages[request.url!]));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const dir = mkdtempSync(join(tmpdir(), 'watchcat-trust-'));
    try {
      const state = join(dir, 'state.json');
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const result = await watchcat({ DATA_DIR: dir }, 'audit', 'log', 'watch', url, '--key', oldKey, '--state', state, '--once');
      const kept = existsSync(state) ? (JSON.parse(readFileSync(state, 'utf8')) as { verifier_keys: string[] }).verifier_keys : undefined;
      return { ...result, url, kept };
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const CHECKPOINT = '/.well-known/transparency/checkpoint';
  const KEYS = '/.well-known/transparency/keys';

  it('through `audit log watch`: does not learn a co-signer that the service\'s history marks compromised', async () => {
    const history = { keys: [{ verifier_key: oldKey }, { verifier_key: nextKey, revoked: { revoked_at: 1, reason: 'compromised' } }] };
    const result = await watchPages({ [CHECKPOINT]: noteOf(line(old), line(next)), [KEYS]: JSON.stringify(history) });
    expect(result.code, result.notes.join('\n')).to.equal(0);
    expect(result.kept).to.deep.equal([oldKey]);
  });

  it('through `audit log watch`: fails the check when the key history cannot be read: unreachable, or not the JSON expected', async () => {
    const note = noteOf(line(old));
    const unreachable = await watchPages({ [CHECKPOINT]: note });
    expect(unreachable.code).to.equal(1);
    expect(unreachable.notes.join('\n')).to.contain(`${unreachable.url}${KEYS} answered 404`);
    for (const body of ['not json', '{}', '{"keys": {}}', '{"keys": [{"kid": "x"}]}', `{"keys": [{"verifier_key": "${ORIGIN}+00000000+AQ=="}]}`]) {
      const unreadable = await watchPages({ [CHECKPOINT]: note, [KEYS]: body });
      expect(unreadable.code, body).to.equal(1);
      expect(unreadable.notes.join('\n'), body).to.contain(`${unreadable.url}${KEYS} is not a key history`);
      expect(unreadable.kept, body).to.equal(undefined);
    }
  });
});
