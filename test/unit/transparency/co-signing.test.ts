/**
 * Co-signing during a rotation of the log key (README, "Transparency log"; TRANSPARENCY_LOG_PREVIOUS_KEY): every
 * checkpoint is a C2SP signed note with two signature lines, the current key's then the outgoing key's, each
 * `— <origin> <base64(key id || Ed25519 signature of the text)>`; and since Ed25519 signatures are deterministic, two
 * API processes holding the same keys sign the same bytes for a size, whichever stores its checkpoint first. That
 * needs no second process to show: two publishers in this one, sharing nothing but the history and the keys, do.
 */
import { generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { rmSync } from 'node:fs';
import { expect } from 'chai';
import { openSqliteEventStore } from '../../../shared/adapters/sqlite-event-store.ts';
import type { TransparencyLog } from '../../../read-api/transparency/log-publisher.ts';
import { writeKnownHistory, type TempStore } from '../../audit/support/audit-history.ts';
import { specVerifierKey } from '../../support/note-keys.ts';
import { signedLogOf } from '../../support/signed-log.ts';
import { until } from '../../support/until.ts';

const ORIGIN = 'watch.example/watchcat/events';

describe('transparency log: co-signing during a rotation of the log key', () => {
  let store: TempStore;
  const logs: TransparencyLog[] = [];
  beforeEach(async () => { store = await writeKnownHistory(); });
  afterEach(async () => {
    for (const log of logs.splice(0)) await log.stop();
    rmSync(store.dataDir, { recursive: true, force: true });
  });

  const signedBy = async (key: KeyObject, previousKey?: KeyObject): Promise<string> => {
    const events = openSqliteEventStore(store.file);
    try {
      const { log } = await signedLogOf(events, key, ORIGIN, previousKey);
      logs.push(log);
      await until('a signed checkpoint', () => log.checkpoint() !== undefined);
      return log.checkpoint()!.note;
    } finally {
      await events.close();
    }
  };

  it('signs with the current key then the previous one, the same bytes from two publishers holding both (each over its own read store)', async () => {
    const current = generateKeyPairSync('ed25519').privateKey;
    const previous = generateKeyPairSync('ed25519').privateKey;
    const [one, two] = [await signedBy(current, previous), await signedBy(current, previous)];
    expect(two).to.equal(one);
    const [text, signatures] = one.split('\n\n') as [string, string];
    // The tree, then the serial index's line (its root and VRF key: serial-index.ts).
    expect(text).to.match(new RegExp(`^${ORIGIN}\\n12\\n[A-Za-z0-9+/]{43}=\\nwatchcat/serial-index/v1 [A-Za-z0-9+/]{43}= [A-Za-z0-9+/]{43}=$`));
    const lines = signatures.trimEnd().split('\n');
    expect(lines).to.have.length(2);
    [current, previous].forEach((key, i) => {
      const [dash, name, encoded] = lines[i]!.split(' ');
      expect([dash, name]).to.deep.equal(['\u2014', ORIGIN]);
      const bytes = Buffer.from(encoded!, 'base64');
      expect(bytes.subarray(0, 4).toString('hex'), `key id of signature ${i + 1}`).to.equal(specVerifierKey(ORIGIN, key).split('+')[1]);
      expect(verify(null, Buffer.from(`${text}\n`), key, bytes.subarray(4)), `signature ${i + 1}`).to.equal(true);
    });
  });

  it('signs with the current key alone when no previous key is given', async () => {
    const note = await signedBy(generateKeyPairSync('ed25519').privateKey);
    expect(note.split('\n\n')[1]!.trimEnd().split('\n')).to.have.length(1);
  });
});
