/**
 * The log key (README, "Settings": TRANSPARENCY_LOG_KEY, TRANSPARENCY_LOG_KEYS): its own file under DATA_DIR, never
 * the answer-signing key, kept across starts; or the PEM given in the environment, which its history must list; and
 * the answer-signing key's rules for that history (docs/api.md, "Signed answers"): a retired, compromised or
 * not-yet-valid key does not sign. The history is served as verifier keys with their dates.
 */
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadLogKey, loadLogKeys, logKeyHistory } from '../../../read-api/transparency/log-key.ts';
import { verifierKey } from '../../../shared/read-model/transparency/signed-note.ts';
import { historyEntry, historyOf, newSigningKeyPem } from '../../support/signing-keys.ts';

const ORIGIN = 'watch.example/watchcat/events';
import { loadSigningKeys } from '../../../read-api/signing/signing-keys.ts';
import { rawPublicKey } from '../../../shared/read-model/transparency/signed-note.ts';

describe('transparency log: the log key', () => {
  let dataDir: string;
  beforeEach(() => { dataDir = mkdtempSync(join(tmpdir(), 'watchcat-log-key-')); });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is generated once into DATA_DIR/keys/transparency-log-key.pem (mode 0600), apart from the answer-signing key', async () => {
    const first = await loadLogKey({ DATA_DIR: dataDir });
    const again = await loadLogKey({ DATA_DIR: dataDir });
    expect(rawPublicKey(again).equals(rawPublicKey(first))).to.equal(true);
    expect(statSync(join(dataDir, 'keys', 'transparency-log-key.pem')).mode & 0o777).to.equal(0o600);
    const answers = await loadSigningKeys({ DATA_DIR: dataDir });
    expect(rawPublicKey(answers.current.privateKey).equals(rawPublicKey(first))).to.equal(false);
  });

  it('is the PEM of TRANSPARENCY_LOG_KEY when set and listed in TRANSPARENCY_LOG_KEYS, with \\n escapes accepted', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    const key = await loadLogKey({ DATA_DIR: dataDir, TRANSPARENCY_LOG_KEY: pem.replace(/\n/g, '\\n'), TRANSPARENCY_LOG_KEYS: historyOf(pem) });
    expect(rawPublicKey(key).equals(rawPublicKey(privateKey))).to.equal(true);
  });

  it('follows the answer-signing key\'s history rules: listed, not retired, not compromised, not before its nbf', async () => {
    const now = 1_800_000_000;
    const pem = newSigningKeyPem();
    const refused = (history: object) => loadLogKeys({ DATA_DIR: dataDir, TRANSPARENCY_LOG_KEY: pem, TRANSPARENCY_LOG_KEYS: JSON.stringify(history) }, now)
      .then(() => '', (error: Error) => error.message);
    const other = newSigningKeyPem();
    expect(await refused({ keys: [historyEntry(other, { nbf: now - 10 })] })).to.match(/^TRANSPARENCY_LOG_KEYS must list the log key \(kid [\w-]+\) with its "nbf"/);
    expect(await refused({ keys: [historyEntry(pem, { nbf: now - 100, exp: now - 10 })] })).to.match(/^TRANSPARENCY_LOG_KEYS retired the log key \(kid [\w-]+\) at 2027-01-15T07:59:50.000Z$/);
    expect(await refused({ keys: [historyEntry(pem, { nbf: now - 100, revoked: { revoked_at: now - 5, reason: 'compromised' } })] })).to.match(/marks the log key .* compromised/);
    expect(await refused({ keys: [historyEntry(pem, { nbf: now + 3_600 })] })).to.match(/says the log key .* begins signing at .*, which is still to come$/);
    expect(await refused({ keys: [historyEntry(other, { nbf: now - 1_000, exp: now - 10 }), historyEntry(pem, { nbf: now - 10 })] })).to.equal('');
  });

  it('names the setting that holds a key that is not an Ed25519 private key: TRANSPARENCY_LOG_KEY, TRANSPARENCY_LOG_PREVIOUS_KEY', async () => {
    const pem = newSigningKeyPem();
    const refused = (settings: { TRANSPARENCY_LOG_KEY: string; TRANSPARENCY_LOG_PREVIOUS_KEY?: string }) =>
      loadLogKeys({ DATA_DIR: dataDir, TRANSPARENCY_LOG_KEYS: historyOf(pem), ...settings }).then(() => '', (error: Error) => error.message);
    expect(await refused({ TRANSPARENCY_LOG_KEY: 'not a key' })).to.equal('TRANSPARENCY_LOG_KEY is not an Ed25519 private key in PKCS#8 PEM');
    expect(await refused({ TRANSPARENCY_LOG_KEY: pem, TRANSPARENCY_LOG_PREVIOUS_KEY: 'not a key' }))
      .to.equal('TRANSPARENCY_LOG_PREVIOUS_KEY is not an Ed25519 private key in PKCS#8 PEM');
  });

  it('judges the key\'s dates by this process\'s clock when given no time: an nbf an hour ahead does not sign yet', async () => {
    const pem = newSigningKeyPem();
    const nowSeconds = Math.floor(Date.now() / 1000);
    const load = (nbf: number) => loadLogKeys({ DATA_DIR: dataDir, TRANSPARENCY_LOG_KEY: pem, TRANSPARENCY_LOG_KEYS: JSON.stringify({ keys: [historyEntry(pem, { nbf })] }) })
      .then(() => '', (error: Error) => error.message);
    expect(await load(nowSeconds + 3_600)).to.match(/begins signing at .*, which is still to come$/);
    expect(await load(nowSeconds - 3_600)).to.equal('');
  });

  it('takes TRANSPARENCY_LOG_PREVIOUS_KEY to co-sign only when the history lists it as a key that may still sign', async () => {
    const now = 1_800_000_000;
    const pem = newSigningKeyPem();
    const previous = newSigningKeyPem();
    const load = (entry: object | undefined, previousPem = previous) => loadLogKeys({
      DATA_DIR: dataDir, TRANSPARENCY_LOG_KEY: pem, TRANSPARENCY_LOG_PREVIOUS_KEY: previousPem,
      TRANSPARENCY_LOG_KEYS: JSON.stringify({ keys: [historyEntry(pem, { nbf: now - 10 }), ...(entry ? [entry] : [])] }),
    }, now);
    const refused = (entry: object | undefined, previousPem = previous) => load(entry, previousPem).then(() => '', (error: Error) => error.message);
    const keys = await load(historyEntry(previous, { nbf: now - 1_000 }));
    expect(rawPublicKey(keys.previousKey!).equals(rawPublicKey(createPrivateKey(previous)))).to.equal(true);
    expect(await load(historyEntry(previous, { nbf: now - 1_000, exp: now + 60 })).then(() => 'taken'), 'retired a minute from now').to.equal('taken');
    expect(await refused(undefined)).to.match(/^TRANSPARENCY_LOG_KEYS must list the previous log key \(kid [\w-]+\) with its "nbf"$/);
    expect(await refused(historyEntry(previous, { nbf: now - 1_000, revoked: { revoked_at: now - 5, reason: 'compromised' } })))
      .to.match(/^TRANSPARENCY_LOG_KEYS marks the previous log key \(kid [\w-]+\) compromised/);
    expect(await refused(historyEntry(previous, { nbf: now - 1_000, exp: now - 10 }))).to.match(/^TRANSPARENCY_LOG_KEYS retired the previous log key \(kid [\w-]+\) at 2027-01-15T07:59:50.000Z$/);
    expect(await refused(undefined, pem)).to.match(/^TRANSPARENCY_LOG_PREVIOUS_KEY is the log key itself/);
    expect((await loadLogKeys({ DATA_DIR: dataDir, TRANSPARENCY_LOG_KEY: pem, TRANSPARENCY_LOG_KEYS: historyOf(pem) })).previousKey).to.equal(undefined);
  });

  it('makes the history it serves (logKeyHistory) of verifier keys with their dates, the key that signs among them', async () => {
    const old = newSigningKeyPem();
    const pem = newSigningKeyPem();
    const history = { keys: [historyEntry(old, { nbf: 1_700_000_000, exp: 1_750_000_000 }), historyEntry(pem, { nbf: 1_750_000_000 })] };
    const keys = await loadLogKeys({ DATA_DIR: dataDir, TRANSPARENCY_LOG_KEY: pem, TRANSPARENCY_LOG_KEYS: JSON.stringify(history) });
    const served = JSON.parse(logKeyHistory(ORIGIN, keys.history)) as { keys: { verifier_key: string; nbf: number; exp?: number }[] };
    expect(served.keys.map(({ verifier_key, ...dates }) => [verifier_key, dates.nbf, dates.exp])).to.deep.equal([
      [verifierKey(ORIGIN, createPrivateKey(old)), 1_700_000_000, 1_750_000_000],
      [verifierKey(ORIGIN, keys.privateKey), 1_750_000_000, undefined],
    ]);
  });
});
