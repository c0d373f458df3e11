/**
 * `watchcat audit log verify EXPORT --checkpoint FILE --key KEY` (issue 32): an export of the history the service
 * signed matches its checkpoint; an edited, removed, moved or inserted event does not, nor does a checkpoint
 * altered or signed by another key. The checkpoint is the one the read API's publisher signs of the log's projection.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { noteText, signNote, verifierKey } from '../../shared/read-model/transparency/signed-note.ts';
import { checkpointBody } from '../../shared/read-model/transparency/checkpoint.ts';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { serialRegistered } from '../fixtures/events.ts';
import { signedLogOf } from '../support/signed-log.ts';
import type { TransparencyLog } from '../../read-api/transparency/log-publisher.ts';
import { transparencyRoutes } from '../../read-api/transparency/transparency-routes.ts';
import { writeKnownHistory, type TempStore } from './support/audit-history.ts';
import { watchcat } from './support/watchcat-run.ts';

const ORIGIN = 'watch.example/watchcat/events';

describe('audit log verify: an export against a signed checkpoint', () => {
  let store: TempStore;
  let exported: string;
  let lines: string[];
  let checkpointFile: string;
  let key: string;
  let logKey: KeyObject;
  let log: TransparencyLog;
  let server: Server | undefined;

  /** The log's public routes, as the service serves them, for `--log`. */
  const serveLog = async (): Promise<string> => {
    server = new Koa().use(transparencyRoutes(log)).listen(0, '127.0.0.1');
    await once(server, 'listening');
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  beforeEach(async () => {
    store = await writeKnownHistory();
    const events = openSqliteEventStore(store.file);
    logKey = generateKeyPairSync('ed25519').privateKey;
    ({ log } = await signedLogOf(events, logKey, ORIGIN));
    checkpointFile = join(store.dataDir, 'checkpoint');
    writeFileSync(checkpointFile, log.checkpoint()!.note);
    key = log.verifierKey;
    await events.close();
    exported = join(store.dataDir, 'export.ndjson');
    expect((await watchcat(store.env, 'export', '--out', exported)).code).to.equal(0);
    lines = readFileSync(exported, 'utf8').trim().split('\n');
  });
  afterEach(async () => {
    await log.stop();
    if (server) await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    rmSync(store.dataDir, { recursive: true, force: true });
  });

  const verifyWith = async (content: string[], ...extra: string[]) => {
    const file = join(store.dataDir, 'changed.ndjson');
    writeFileSync(file, `${content.join('\n')}\n`);
    return watchcat(store.env, 'audit', 'log', 'verify', file, '--checkpoint', checkpointFile, '--key', key, ...extra);
  };

  it('accepts the export of the history signed, naming its size and root', async () => {
    const result = await watchcat(store.env, 'audit', 'log', 'verify', exported, '--checkpoint', checkpointFile, '--key', key);
    expect(result.code, result.notes.join('\n')).to.equal(0);
    expect(result.out[0]).to.match(new RegExp(`matches the checkpoint of ${ORIGIN}: 12 leaves, root [A-Za-z0-9+/]{43}=$`));
    // Progress as audit verify gives it: the lines of the file read, off a terminal a line at the end.
    expect(result.notes.filter((line) => line.startsWith('log verify: ')).at(-1)).to.match(/^log verify: 12\/12 events, \d+ events\/s, ETA 0 s$/);
  });

  it('refuses an export with an edited, moved or inserted event: the root differs', async () => {
    const edited = lines.map((line, i) => (i === 3 ? line.replace('"price_cents":1250000', '"price_cents":1') : line));
    expect(edited[3]).to.not.equal(lines[3]);
    const moved = [...lines.slice(0, 4), lines[5]!, lines[4]!, ...lines.slice(6)];
    const inserted = [...lines.slice(0, 7), lines[2]!, ...lines.slice(7)];
    for (const [what, content] of [['edited', edited], ['moved', moved], ['inserted', inserted]] as const) {
      const result = await verifyWith(content);
      expect(result.code, what).to.equal(1);
      expect(result.notes.join('\n'), what).to.match(/the first 12 events of .* give root .*, the checkpoint says .*: this is not the history that was signed/);
    }
  });

  it('refuses an export with an event removed: fewer events than the checkpoint signed', async () => {
    const result = await verifyWith([...lines.slice(0, 6), ...lines.slice(7)]);
    expect(result.code).to.equal(1);
    expect(result.notes.join('\n')).to.contain('holds 11 events, the checkpoint 12');
  });

  it('refuses a checkpoint altered after signing, or checked with another log\'s key', async () => {
    writeFileSync(checkpointFile, readFileSync(checkpointFile, 'utf8').replace('\n12\n', '\n11\n'));
    const altered = await verifyWith(lines);
    expect(altered.code).to.equal(1);
    expect(altered.notes.at(-1)).to.equal(`watchcat: checkpoint ${checkpointFile}: the signature of ${ORIGIN} does not match the note`);
    const other = verifierKey(ORIGIN, generateKeyPairSync('ed25519').privateKey);
    const foreign = await watchcat(store.env, 'audit', 'log', 'verify', exported, '--checkpoint', checkpointFile, '--key', other);
    expect(foreign.code).to.equal(1);
    expect(foreign.notes.join('\n')).to.contain(`carries no signature of ${ORIGIN}`);
  });

  it('refuses a checkpoint of another origin signed by the log\'s own key, with --key and with --policy: it vouches for no tree of this log', async () => {
    const { size, root } = log.checkpoint()!;
    const staging = 'staging.example/watchcat/events';
    writeFileSync(checkpointFile, signNote(checkpointBody({ origin: staging, size, root }), ORIGIN, logKey));
    const withKey = await verifyWith(lines);
    expect(withKey.code).to.equal(1);
    const refusal = `watchcat: checkpoint ${checkpointFile}: the checkpoint's origin ${staging} is not the name of the log key that signed it (${ORIGIN})`;
    expect(withKey.notes.at(-1)).to.equal(refusal);
    const policy = join(store.dataDir, 'ours.policy');
    writeFileSync(policy, `log ${key}\nquorum none\n`);
    const withPolicy = await watchcat(store.env, 'audit', 'log', 'verify', exported, '--checkpoint', checkpointFile, '--policy', policy);
    expect(withPolicy.code).to.equal(1);
    expect(withPolicy.notes.at(-1)).to.equal(refusal);
  });

  it('refuses an export that starts mid-history', async () => {
    const partial = join(store.dataDir, 'partial.ndjson');
    expect((await watchcat(store.env, 'export', '--from', '3', '--out', partial)).code).to.equal(0);
    const result = await watchcat(store.env, 'audit', 'log', 'verify', partial, '--checkpoint', checkpointFile, '--key', key);
    expect(result.code).to.equal(1);
    expect(result.notes.join('\n')).to.contain('starts mid-history (position 4)');
  });

  it('names the first leaf that differs (an event edited, removed, moved or inserted), by the service\'s consistency proofs checked against the signed root', async () => {
    const url = await serveLog();
    const positionOf = (line: string) => (JSON.parse(line) as { position: number; stream: string; revision: number });
    const edited = lines.map((line, i) => (i === 3 ? line.replace('"price_cents":1250000', '"price_cents":1') : line));
    const at3 = positionOf(lines[3]!);
    const editedResult = await verifyWith(edited, '--log', url);
    expect(editedResult.code).to.equal(1);
    expect(editedResult.notes.join('\n')).to.contain(`the first leaf that differs is leaf 3: the export's event at position ${at3.position} (${at3.stream} revision ${at3.revision})`);
    const removed = await verifyWith([...lines.slice(0, 6), ...lines.slice(7)], '--log', url);
    const at7 = positionOf(lines[7]!);
    expect(removed.notes.join('\n')).to.contain(`holds 11 events, the checkpoint 12`)
      .and.contain(`the first leaf that differs is leaf 6: the export's event at position ${at7.position}`);
    // Moved: lines 4 and 5 swapped, the first leaf that differs is 4, which now holds the event of line 5.
    const moved = await verifyWith([...lines.slice(0, 4), lines[5]!, lines[4]!, ...lines.slice(6)], '--log', url);
    const at5 = positionOf(lines[5]!);
    expect(moved.code).to.equal(1);
    expect(moved.notes.join('\n')).to.contain(`the first leaf that differs is leaf 4: the export's event at position ${at5.position} (${at5.stream} revision ${at5.revision})`);
    // Inserted: a copy of line 2 put in before line 7, the first leaf that differs is 7, the copy.
    const inserted = await verifyWith([...lines.slice(0, 7), lines[2]!, ...lines.slice(7)], '--log', url);
    const at2 = positionOf(lines[2]!);
    expect(inserted.code).to.equal(1);
    expect(inserted.notes.join('\n')).to.contain(`the first leaf that differs is leaf 7: the export's event at position ${at2.position} (${at2.stream} revision ${at2.revision})`);
    const cut = await verifyWith(lines.slice(0, 9), '--log', url);
    expect(cut.notes.join('\n')).to.contain('the export\'s first 9 events are the signed ones, leaf 9 on is missing from it');
    const unlocated = await verifyWith(edited);
    expect(unlocated.notes.join('\n')).to.contain('give --log with the service\'s URL to name the first leaf that differs');
  });

  it('names leaf 0 for an edit of the first event and leaf 11 for an edit of the last, the two ends of the bisection', async () => {
    const url = await serveLog();
    const positionOf = (line: string) => (JSON.parse(line) as { position: number; stream: string; revision: number });
    const first = lines.map((line, i) => (i === 0 ? line.replace('"Regatta"', '"Regata"') : line));
    expect(first[0]).to.not.equal(lines[0]);
    const at0 = positionOf(lines[0]!);
    const firstResult = await verifyWith(first, '--log', url);
    expect(firstResult.code).to.equal(1);
    expect(firstResult.notes.join('\n')).to.contain(`the first leaf that differs is leaf 0: the export's event at position ${at0.position} (${at0.stream} revision ${at0.revision})`);
    const last = lines.map((line, i) => (i === 11 ? line.replace(/"price_cents":(\d+)/, '"price_cents":1$1') : line));
    expect(last[11]).to.not.equal(lines[11]);
    const at11 = positionOf(lines[11]!);
    const lastResult = await verifyWith(last, '--log', url);
    expect(lastResult.code).to.equal(1);
    expect(lastResult.notes.join('\n')).to.contain(`the first leaf that differs is leaf 11: the export's event at position ${at11.position} (${at11.stream} revision ${at11.revision})`);
  });

  it('accepts an export taken after the checkpoint, naming the later events the checkpoint does not cover', async () => {
    const events = openSqliteEventStore(store.file);
    await events.append('serial-LATE-1', [serialRegistered('LATE-1')], 'no_stream');
    await events.append('serial-LATE-2', [serialRegistered('LATE-2')], 'no_stream');
    await events.close();
    const later = join(store.dataDir, 'later.ndjson');
    expect((await watchcat(store.env, 'export', '--out', later)).code).to.equal(0);
    const result = await watchcat(store.env, 'audit', 'log', 'verify', later, '--checkpoint', checkpointFile, '--key', key);
    expect(result.code, result.notes.join('\n')).to.equal(0);
    expect(result.out[0]).to.match(new RegExp(`matches the checkpoint of ${ORIGIN}: 12 leaves, `));
    expect(result.out[1]).to.equal('the export holds 2 later events, not covered by this checkpoint');
    const exact = await watchcat(store.env, 'audit', 'log', 'verify', exported, '--checkpoint', checkpointFile, '--key', key);
    expect(exact.out).to.have.length(1);
  });

  it('without --key checks the root only, and says the signature was not checked', async () => {
    const result = await watchcat(store.env, 'audit', 'log', 'verify', exported, '--checkpoint', checkpointFile);
    expect(result.code, result.notes.join('\n')).to.equal(0);
    expect(result.out[0]).to.match(new RegExp(`matches the checkpoint of ${ORIGIN}: 12 leaves, root [A-Za-z0-9+/]{43}=$`));
    expect(result.notes.join('\n')).to.contain('signature not checked');
  });

  it('reads a checkpoint whose text holds a blank line as with --key and without: it is no checkpoint', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    // The signed checkpoint with more text after a blank line, all of it signed: the first lines alone are the tree signed above.
    writeFileSync(checkpointFile, signNote(`${noteText(log.checkpoint()!.note)}\nafter a blank line\n`, ORIGIN, privateKey));
    const refusal = `watchcat: checkpoint ${checkpointFile}: not a tlog checkpoint: an empty extension line`;
    const keyed = await watchcat(store.env, 'audit', 'log', 'verify', exported, '--checkpoint', checkpointFile, '--key', verifierKey(ORIGIN, privateKey));
    expect(keyed.code).to.equal(1);
    expect(keyed.notes.at(-1)).to.equal(refusal);
    const unkeyed = await watchcat(store.env, 'audit', 'log', 'verify', exported, '--checkpoint', checkpointFile);
    expect(unkeyed.code, unkeyed.out.join('\n')).to.equal(1);
    expect(unkeyed.notes.at(-1)).to.equal(refusal);
  });

  it('with --policy, its log stands for --key; a policy of another log, or --key of another log, refuses the checkpoint', async () => {
    const foreign = verifierKey(ORIGIN, generateKeyPairSync('ed25519').privateKey);
    const policy = (name: string, text: string) => {
      const file = join(store.dataDir, name);
      writeFileSync(file, text);
      return file;
    };
    const ours = policy('ours.policy', `log ${key}\nquorum none\n`);
    const theirs = policy('theirs.policy', `log ${foreign}\nquorum none\n`);
    const noLog = policy('no-log.policy', 'quorum none\n');
    const run = (...extra: string[]) => watchcat(store.env, 'audit', 'log', 'verify', exported, '--checkpoint', checkpointFile, ...extra);
    // docs/audit.md, "Witness policy": met, the command says which witnesses cosigned (none needed by quorum none).
    const held = await run('--policy', ours);
    expect(held.code, held.notes.join('\n')).to.equal(0);
    expect(held.out[0]).to.equal('witnesses: the checkpoint is cosigned by no witness, as the policy\'s quorum (none) requires');
    expect(held.out[1]).to.match(/matches the checkpoint of .*: 12 leaves/);
    expect(held.notes.join('\n')).not.to.contain('signature not checked');
    const other = await run('--policy', theirs);
    expect(other.code).to.equal(1);
    expect(other.notes.at(-1)).to.equal(`watchcat: checkpoint ${checkpointFile}: the checkpoint is signed by no log of the witness policy`);
    const wrongKey = await run('--policy', ours, '--key', foreign);
    expect(wrongKey.code).to.equal(1);
    expect(wrongKey.notes.join('\n')).to.contain(`carries no signature of ${ORIGIN}`);
    // A policy that lists no log checks no signature: the note says so, as without --key.
    const unsigned = await run('--policy', noLog);
    expect(unsigned.code, unsigned.notes.join('\n')).to.equal(0);
    expect(unsigned.notes.join('\n')).to.contain('signature not checked');
    const missing = join(store.dataDir, 'absent.policy');
    const unread = await run('--policy', missing, '--key', key);
    expect(unread.code).to.equal(1);
    expect(unread.notes.at(-1)).to.contain(`cannot read the witness policy ${missing}: ENOENT`);
  });

  it('names a checkpoint or a --key file it cannot read, with the reason', async () => {
    const absent = join(store.dataDir, 'absent-checkpoint');
    const noCheckpoint = await watchcat(store.env, 'audit', 'log', 'verify', exported, '--checkpoint', absent, '--key', key);
    expect(noCheckpoint.code).to.equal(1);
    expect(noCheckpoint.notes.at(-1)).to.equal(`watchcat: cannot read the checkpoint ${absent}: ENOENT`);
    // A directory exists but cannot be read as a key file.
    const keyDir = await watchcat(store.env, 'audit', 'log', 'verify', exported, '--checkpoint', checkpointFile, '--key', store.dataDir);
    expect(keyDir.code).to.equal(1);
    expect(keyDir.notes.at(-1)).to.equal(`watchcat: cannot read the verifier key ${store.dataDir}: EISDIR`);
    // A device named by mistake is refused at 1 MiB, not read until memory runs out.
    const endless = await watchcat(store.env, 'audit', 'log', 'verify', exported, '--checkpoint', '/dev/zero', '--key', key);
    expect(endless.code).to.equal(1);
    expect(endless.notes.at(-1)).to.equal(`watchcat: cannot read the checkpoint /dev/zero: it is larger than the ${1 << 20} bytes read of one`);
  });

  it('takes --log with a trailing slash', async () => {
    const url = await serveLog();
    const positionOf = (line: string) => (JSON.parse(line) as { position: number; stream: string; revision: number });
    const edited = lines.map((line, i) => (i === 3 ? line.replace('"price_cents":1250000', '"price_cents":1') : line));
    const at3 = positionOf(lines[3]!);
    const result = await verifyWith(edited, '--log', `${url}/`);
    expect(result.code).to.equal(1);
    expect(result.notes.join('\n')).to.contain(`the first leaf that differs is leaf 3: the export's event at position ${at3.position}`);
  });

  it('names no leaf when the service refuses a proof or no longer serves the signed tree (its proofs are not trusted then), still saying the history is not the signed one', async () => {
    const edited = lines.map((line, i) => (i === 3 ? line.replace('"price_cents":1250000', '"price_cents":1') : line));
    // A service that fails, then one whose tree of 12 leaves has another root than the signed one (its proofs empty).
    for (const [status, body] of [[500, '{}'], [200, JSON.stringify({ root: Buffer.alloc(32, 7).toString('base64'), proof: [] })]] as const) {
      server = createServer((_, response) => response.writeHead(status, { 'content-type': 'application/json' }).end(body)).listen(0, '127.0.0.1');
      await once(server, 'listening');
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const result = await verifyWith(edited, '--log', url);
      expect(result.code).to.equal(1);
      const said = result.notes.at(-1)!;
      expect(said).to.contain('cannot locate the leaf that differs').and.not.contain('the first leaf that differs is');
      expect(said, 'the finding itself').to.contain('this is not the history that was signed');
      expect(said).to.contain(status === 500 ? 'answered 500' : `${url} no longer gives the tree of 12 leaves that the checkpoint signed`);
      await new Promise((resolve) => server!.close(resolve));
      server = undefined;
    }
  });
});
