/**
 * `watchcat audit log watch URL --once` across a rotation of the log key (issue 32), against the embedded service
 * (test/audit/support/log-watch-service.ts): the monitor trusts the new key once it co-signed a checkpoint with the
 * old one (TRANSPARENCY_LOG_PREVIOUS_KEY), and fails on a checkpoint signed by no key it trusts; a key the service's
 * history later marks compromised is dropped.
 */
import { createPrivateKey } from 'node:crypto';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { specVerifierKey } from '../support/note-keys.ts';
import { historyEntry, newSigningKeyPem } from '../support/signing-keys.ts';
import { monitoredService } from './support/log-watch-service.ts';

describe('audit log watch: a rotation of the log key', function () {
  this.timeout(60_000);
  const m = monitoredService();
  const { start, stop, watch, append, restartAfter } = m;
  const ORIGIN = 'localhost/watchcat/events';
  const now = Math.floor(Date.now() / 1000);
  const newPem = newSigningKeyPem();
  /** The key the service generated at its first start, which the monitor was first given. */
  const oldPem = () => readFileSync(join(m.store.dataDir, 'keys', 'transparency-log-key.pem'), 'utf8');
  const idOf = (pem: string) => specVerifierKey(ORIGIN, createPrivateKey(pem)).split('+')[1];
  const history = (old: Parameters<typeof historyEntry>[1]) =>
    JSON.stringify({ keys: [historyEntry(oldPem(), old), historyEntry(newPem, { nbf: now - 60 })] });
  const keptKeys = (file = m.stateFile) => (JSON.parse(readFileSync(file, 'utf8')) as { verifier_keys: string[] }).verifier_keys;

  it('trusts the new key once it co-signed with a trusted one, then takes checkpoints it signs alone; a monitor that saw no co-signed checkpoint fails', async () => {
    const neverCoSigned = join(m.store.dataDir, 'never-co-signed.json');
    copyFileSync(m.stateFile, neverCoSigned);
    const [oldKey, newKey] = [oldPem(), newPem].map((pem) => specVerifierKey(ORIGIN, createPrivateKey(pem)));
    await restartAfter(() => append('MW-0003'), { TRANSPARENCY_LOG_KEY: newPem, TRANSPARENCY_LOG_PREVIOUS_KEY: oldPem(), TRANSPARENCY_LOG_KEYS: history({ nbf: now - 3_600 }) });
    const coSigned = await watch();
    expect(coSigned.code, coSigned.notes.join('\n')).to.equal(0);
    expect(coSigned.out[0]).to.equal(`${ORIGIN}: now trusts ${ORIGIN} key id ${idOf(newPem)}, which co-signed the tree of 13 leaves`);
    expect(coSigned.out[1]).to.match(/: 13 leaves, root .*, consistent with 12$/);
    expect(keptKeys()).to.deep.equal([oldKey, newKey]);

    await restartAfter(() => append('MW-0004'), { TRANSPARENCY_LOG_KEY: newPem, TRANSPARENCY_LOG_KEYS: history({ nbf: now - 3_600, exp: now - 1 }) });
    const alone = await watch();
    expect(alone.code, alone.notes.join('\n')).to.equal(0);
    expect(alone.out).to.have.length(1);
    expect(alone.out[0]).to.match(/: 14 leaves, root .*, consistent with 13$/);
    expect(keptKeys()).to.deep.equal([oldKey, newKey]);

    const stranded = await watch(neverCoSigned);
    expect(stranded.code).to.equal(1);
    expect(stranded.notes.join('\n')).to.contain(
      `signed by no key this monitor trusts: it carries ${ORIGIN} key id ${idOf(newPem)}; trusted: ${ORIGIN} key id ${idOf(oldPem())}`);
    expect(keptKeys(neverCoSigned)).to.deep.equal([oldKey]);
  });

  it('drops a trusted key once the history marks it compromised: a monitor that learned the new key goes on, one that trusted only the old key fails', async () => {
    const neverCoSigned = join(m.store.dataDir, 'never-co-signed.json');
    copyFileSync(m.stateFile, neverCoSigned);
    const newKey = specVerifierKey(ORIGIN, createPrivateKey(newPem));
    await restartAfter(() => append('MW-0005'), { TRANSPARENCY_LOG_KEY: newPem, TRANSPARENCY_LOG_PREVIOUS_KEY: oldPem(), TRANSPARENCY_LOG_KEYS: history({ nbf: now - 3_600 }) });
    const coSigned = await watch();
    expect(coSigned.code, coSigned.notes.join('\n')).to.equal(0);
    expect(keptKeys()).to.have.length(2);

    // The old key leaked: the service signs with the new key alone, and its history marks the old one compromised.
    await restartAfter(() => append('MW-0006'), {
      TRANSPARENCY_LOG_KEY: newPem, TRANSPARENCY_LOG_KEYS: history({ nbf: now - 3_600, revoked: { revoked_at: now - 10, reason: 'compromised' } }),
    });
    const dropped = `${ORIGIN}: no longer trusts ${ORIGIN} key id ${idOf(oldPem())}, which the service's key history marks compromised`;
    const goesOn = await watch();
    expect(goesOn.code, goesOn.notes.join('\n')).to.equal(0);
    expect(goesOn.out[0]).to.equal(dropped);
    expect(goesOn.out[1]).to.match(/: 14 leaves, root .*, consistent with 13$/);
    expect(keptKeys()).to.deep.equal([newKey]);
    const again = await watch();
    expect(again.out).to.have.length(1);
    expect(again.out[0]).to.match(/: 14 leaves, unchanged$/);

    const stranded = await watch(neverCoSigned);
    expect(stranded.code).to.equal(1);
    expect(stranded.out[0]).to.equal(dropped);
    expect(stranded.notes.join('\n')).to.contain(`signed by no key this monitor trusts: it carries ${ORIGIN} key id ${idOf(newPem)}; trusted: none; `
      + `dropped as compromised: ${ORIGIN} key id ${idOf(oldPem())}`);
    expect(keptKeys(neverCoSigned), 'the drop is kept though the check failed').to.deep.equal([]);
  });

  it('loads a state file that pinned one key, as monitors wrote before, and keeps that key', async () => {
    const { verifier_keys: [pinned], ...rest } = JSON.parse(readFileSync(m.stateFile, 'utf8')) as { verifier_keys: string[] };
    writeFileSync(m.stateFile, JSON.stringify({ ...rest, verifier_key: pinned }));
    const again = await watch();
    expect(again.code, again.notes.join('\n')).to.equal(0);
    expect(again.out[0]).to.match(/: 12 leaves, unchanged$/);
    const kept = JSON.parse(readFileSync(m.stateFile, 'utf8')) as object;
    expect(kept).to.not.have.property('verifier_key');
    expect(keptKeys()).to.deep.equal([specVerifierKey(ORIGIN, createPrivateKey(oldPem()))]);
  });

  it('is never given a co-signature by a compromised key: the service refuses to start with it as the previous key', async () => {
    await stop();
    const refused = await start({
      TRANSPARENCY_LOG_KEY: newPem, TRANSPARENCY_LOG_PREVIOUS_KEY: oldPem(),
      TRANSPARENCY_LOG_KEYS: history({ nbf: now - 3_600, revoked: { revoked_at: now - 10, reason: 'compromised' } }),
    }).then(() => 'started', (error: Error) => error.message);
    expect(refused).to.match(/^TRANSPARENCY_LOG_KEYS marks the previous log key \(kid [\w-]+\) compromised/);
  });
});
