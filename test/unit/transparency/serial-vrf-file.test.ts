/**
 * The serials' VRF evaluations kept across starts (read-api/transparency/serial-vrf-file.ts): what one start
 * remembered, the next finds, a proof added later included; a torn last line is skipped, and what is remembered
 * after it is found at the next start; a line of another shape than `<serial> <key> [<proof>]` is not read; another
 * VRF key finds none. The file lists every registered serial, which the VRF exists to keep unlisted: like the event
 * store, it is readable by its owner only (README.md, "Security": 0600, its folder 0700).
 */
import { appendFileSync, chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { checkpointFile } from '../../../read-api/transparency/checkpoint-file.ts';
import { serialVrfFile } from '../../../read-api/transparency/serial-vrf-file.ts';
import { checkpointBody } from '../../../shared/read-model/transparency/checkpoint.ts';
import { signNote } from '../../../shared/read-model/transparency/signed-note.ts';

describe('serial index: VRF evaluations kept in DATA_DIR', function () {
  let dataDir: string;
  beforeEach(() => { dataDir = mkdtempSync(join(tmpdir(), 'watchcat-vrf-')); });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('finds at the next start what was remembered, a proof added later included, and skips a torn line', function () {
    const vrfKey = randomBytes(32);
    const [key1, key2, proof1] = [randomBytes(32), randomBytes(32), randomBytes(80)];
    const first = serialVrfFile(dataDir, vrfKey);
    first.remember('RG-1001', { key: key1 });
    first.remember('RG-1002', { key: key2 });
    first.remember('RG-1001', { key: key1, proof: proof1 });
    const [file] = readdirSync(join(dataDir, 'transparency'));
    appendFileSync(join(dataDir, 'transparency', file!), `RG-1003 ${randomBytes(32).toString('base64').slice(0, 20)}`);

    const next = serialVrfFile(dataDir, vrfKey);
    expect(next.get('RG-1001')).to.deep.equal({ key: key1, proof: proof1 });
    expect(next.get('RG-1002')).to.deep.equal({ key: key2, proof: undefined });
    expect(next.get('RG-1003'), 'the torn line').to.equal(undefined);
    expect(serialVrfFile(dataDir, randomBytes(32)).get('RG-1001'), 'under another VRF key').to.equal(undefined);
  });

  it('skips a last line torn in its proof, and finds at the next start what was remembered after it', function () {
    const vrfKey = randomBytes(32);
    const [key1, key2, proof1] = [randomBytes(32), randomBytes(32), randomBytes(80)];
    serialVrfFile(dataDir, vrfKey).remember('RG-1001', { key: key1 });
    const [file] = readdirSync(join(dataDir, 'transparency'));
    appendFileSync(join(dataDir, 'transparency', file!), `RG-1001 ${key1.toString('base64')} ${proof1.toString('base64').slice(0, 60)}`);

    const second = serialVrfFile(dataDir, vrfKey);
    expect(second.get('RG-1001'), 'the torn proof').to.deep.equal({ key: key1, proof: undefined });
    second.remember('RG-1002', { key: key2 });
    expect(serialVrfFile(dataDir, vrfKey).get('RG-1002'), 'remembered after the torn line').to.deep.equal({ key: key2, proof: undefined });
  });

  it('does not read a line with more fields than a serial, its key and its proof', function () {
    const vrfKey = randomBytes(32);
    serialVrfFile(dataDir, vrfKey).remember('RG-1001', { key: randomBytes(32) });
    const [file] = readdirSync(join(dataDir, 'transparency'));
    const line = ['RG-1002', randomBytes(32), randomBytes(80), randomBytes(32)].map((field) => (typeof field === 'string' ? field : field.toString('base64')));
    appendFileSync(join(dataDir, 'transparency', file!), `${line.join(' ')}\n`);

    expect(serialVrfFile(dataDir, vrfKey).get('RG-1002')).to.equal(undefined);
  });

  it('writes the file 0600 in a folder 0700, and makes one an earlier version left readable by others 0600', function () {
    const vrfKey = randomBytes(32);
    serialVrfFile(dataDir, vrfKey).remember('RG-1001', { key: randomBytes(32) });
    const [file] = readdirSync(join(dataDir, 'transparency'));
    expect(statSync(join(dataDir, 'transparency')).mode & 0o777, 'the folder').to.equal(0o700);
    expect(statSync(join(dataDir, 'transparency', file!)).mode & 0o777, 'the file').to.equal(0o600);

    const earlier = mkdtempSync(join(tmpdir(), 'watchcat-vrf-earlier-'));
    try {
      mkdirSync(join(earlier, 'transparency'), { mode: 0o755 });
      const left = join(earlier, 'transparency', file!);
      writeFileSync(left, `RG-1001 ${randomBytes(32).toString('base64')}\n`);
      chmodSync(left, 0o644);
      serialVrfFile(earlier, vrfKey);
      expect(statSync(left).mode & 0o777).to.equal(0o600);
    } finally {
      rmSync(earlier, { recursive: true, force: true });
    }
  });

  it('keeps the folder 0700 when the signed checkpoint kept beside the file made it first, DATA_DIR with it', function () {
    const notMadeYet = join(dataDir, 'data');
    const origin = 'watch.example/log';
    checkpointFile(notMadeYet).save(signNote(checkpointBody({ origin, size: 0, root: randomBytes(32), extensions: [] }), origin, generateKeyPairSync('ed25519').privateKey));
    serialVrfFile(notMadeYet, randomBytes(32)).remember('RG-1001', { key: randomBytes(32) });
    expect(statSync(join(notMadeYet, 'transparency')).mode & 0o777).to.equal(0o700);
  });

  it('keeps one line per evaluation remembered, however many starts read the file', function () {
    const vrfKey = randomBytes(32);
    serialVrfFile(dataDir, vrfKey).remember('RG-1001', { key: randomBytes(32) });
    serialVrfFile(dataDir, vrfKey).remember('RG-1002', { key: randomBytes(32) });
    serialVrfFile(dataDir, vrfKey);
    const [file] = readdirSync(join(dataDir, 'transparency'));
    expect(readFileSync(join(dataDir, 'transparency', file!), 'utf8').split('\n').map((line) => line.split(' ')[0])).to.deep.equal(['RG-1001', 'RG-1002', '']);
  });
});
