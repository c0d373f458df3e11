/**
 * `watchcat audit log watch URL --once` (issue 32), against the embedded service: it keeps each checkpoint it sees
 * and accepts a grown log by its consistency proof. An event edited or removed in the store parks the service's own
 * log when its projection is built again (it keeps the checkpoint it signed last); an operator who also removes that
 * record gets a service that signs the rewritten history, which the monitor names a fork (another root for a size
 * signed before, or a tree that does not extend it) or a rollback (a smaller tree), exit 1, naming the leaves
 * rewritten: between the last tree it saw that the new one extends and the first it does not (an event edited,
 * removed, moved or inserted). Across a rotation of the log key: test/audit/log-watch-rotation.test.ts.
 */
import { createPrivateKey } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import { noteText, signNote } from '../../shared/read-model/transparency/signed-note.ts';
import { specVerifierKey } from '../support/note-keys.ts';
import { newSigningKeyPem } from '../support/signing-keys.ts';
import { until } from '../support/until.ts';
import { watchcat } from './support/watchcat-run.ts';
import { monitoredService } from './support/log-watch-service.ts';

describe('audit log watch: a monitor of the transparency log', function () {
  this.timeout(60_000);
  const m = monitoredService();
  const { start, stop, sql, watch, append, restartAfter, rewriteAndRestart } = m;

  it('keeps every checkpoint it sees and accepts a grown log by its consistency proof', async () => {
    await restartAfter(() => append('MW-0001'));
    const grown = await watch();
    expect(grown.code, grown.notes.join('\n')).to.equal(0);
    expect(grown.out[0]).to.match(/: 13 leaves, root .*, consistent with 12$/);
    const again = await watch();
    expect(again.out[0]).to.match(/: 13 leaves, unchanged$/);
    const metrics = await (await fetch(`http://127.0.0.1:${m.service!.ports.ops}/metrics`)).text();
    expect(metrics).to.match(/^transparency_log_size 13$/m);
    expect(metrics).to.match(/^transparency_log_parked 0$/m);
    const kept = JSON.parse(readFileSync(m.stateFile, 'utf8')) as { checkpoints: { size: number }[] };
    expect(kept.checkpoints.map((c) => c.size)).to.deep.equal([12, 13]);
  });

  it('refuses the service\'s log when it restarts on an edited or shortened history: nothing signed or served, the monitor fails', async () => {
    await restartAfter(() => sql(`UPDATE events SET data = replace(data, '1250000', '1') WHERE position = 4`));
    const base = `http://127.0.0.1:${m.service!.ports.public}`;
    for (const path of ['/.well-known/transparency/checkpoint', '/api/public/transparency/consistency?from=1&to=2', '/transparency/tile/0/000.p/1']) {
      const response = await fetch(`${base}${path}`);
      expect(response.status, path).to.equal(503);
      expect(response.headers.get('retry-after'), path).to.equal('60');
      expect(await response.json(), path).to.deep.equal({ detail: 'The transparency log is unavailable; try again later' });
    }
    const metrics = await (await fetch(`http://127.0.0.1:${m.service!.ports.ops}/metrics`)).text();
    expect(metrics).to.match(/^transparency_log_parked 1$/m);
    const result = await watch();
    expect(result.code).to.equal(1);
    expect(result.notes.join('\n')).to.contain('/.well-known/transparency/checkpoint answered 503');
    await restartAfter(() => sql(`UPDATE events SET data = replace(data, '"price_cents":1,', '"price_cents":1250000,') WHERE position = 4`));
    expect((await watch()).code, 'the history restored').to.equal(0);
    await restartAfter(() => sql('DELETE FROM events WHERE position = 12'));
    expect((await fetch(`http://127.0.0.1:${m.service!.ports.public}/.well-known/transparency/checkpoint`)).status).to.equal(503);
    // Refused as shorter once the projector is seen confirming the head (an idle one does every second): the
    // confirmation there when the log first looks is not taken as that word (read-api/transparency/seen-confirmations.ts).
    const parked = async () => /^transparency_log_parked 1$/m.test(await (await fetch(`http://127.0.0.1:${m.service!.ports.ops}/metrics`)).text());
    await until('a history shorter than signed is refused (transparency_log_parked 1)', parked, 10_000);
  });

  it('names a fork when an event signed before was edited: another root for the same size', async () => {
    await rewriteAndRestart(() => sql(`UPDATE events SET data = replace(data, '1250000', '1') WHERE position = 4`));
    const result = await watch();
    expect(result.code).to.equal(1);
    expect(result.notes.join('\n')).to.match(/fork: .* signs two trees of 12 leaves/);
    // The one tree it saw is the first it no longer finds: the rewrite lies anywhere in it.
    expect(result.notes.join('\n')).to.match(/it extends no tree this monitor saw, not even the one of 12 leaves seen at [0-9T:.-]+Z: the history was rewritten in leaves 0 to 11/);
  });

  it('names a fork when the service signs another body for a size signed before: the same tree, another serial index', async () => {
    const base = `http://127.0.0.1:${m.service!.ports.public}`;
    const note = await (await fetch(`${base}/.well-known/transparency/checkpoint`)).text();
    const body = noteText(note);
    expect(body).to.match(/^watchcat\/serial-index\/v1 /m);
    // Signed with the log's own key: a second index for the tree of 12 leaves, where a serial may have another status.
    const other = body.replace(/^(watchcat\/serial-index\/v1 )\S+/m, `$1${Buffer.alloc(32, 7).toString('base64')}`);
    const pem = readFileSync(join(m.store.dataDir, 'keys', 'transparency-log-key.pem'), 'utf8');
    const forged = signNote(other, 'localhost/watchcat/events', createPrivateKey(pem));
    const proxy = createServer((request, response) => {
      if (request.url === '/.well-known/transparency/checkpoint') return void response.writeHead(200).end(forged);
      void fetch(`${base}${request.url}`).then(async (answer) => response.writeHead(answer.status).end(await answer.text()));
    }).listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    try {
      const result = await watchcat(m.store.env, 'audit', 'log', 'watch', `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, '--state', m.stateFile, '--once');
      expect(result.code, result.out.join('\n')).to.equal(1);
      expect(result.notes.join('\n')).to.match(/fork: .* signs two checkpoints of 12 leaves/);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  /** The monitor run through a proxy of the service that serves `note` as its checkpoint. */
  const watchServed = async (note: string, state = m.stateFile) => {
    const base = `http://127.0.0.1:${m.service!.ports.public}`;
    const proxy = createServer((request, response) => {
      if (request.url === '/.well-known/transparency/checkpoint') return void response.writeHead(200).end(note);
      void fetch(`${base}${request.url}`).then(async (answer) => response.writeHead(answer.status).end(await answer.text()));
    }).listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    try {
      return await watchcat(m.store.env, 'audit', 'log', 'watch', `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, '--state', state, '--once');
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  };
  /** The service's checkpoint with its origin line replaced by `origin`, signed with the log's key under `name`. */
  const reoriginated = async (origin: string, name: string) => {
    const note = await (await fetch(`http://127.0.0.1:${m.service!.ports.public}/.well-known/transparency/checkpoint`)).text();
    const body = noteText(note).replace(/^[^\n]*/, origin);
    return signNote(body, name, createPrivateKey(readFileSync(join(m.store.dataDir, 'keys', 'transparency-log-key.pem'), 'utf8')));
  };

  it('refuses a checkpoint whose origin is not the name of the log key that signed it', async () => {
    const fresh = join(m.store.dataDir, 'fresh.json');
    const result = await watchServed(await reoriginated('other.example/watchcat/events', 'localhost/watchcat/events'), fresh);
    expect(result.code, result.out.join('\n')).to.equal(1);
    expect(result.notes.at(-1)).to.match(/checkpoint of http:\S+: the checkpoint's origin other\.example\/watchcat\/events is not the name of the log key that signed it \(localhost\/watchcat\/events\)$/);
    expect(existsSync(fresh)).to.equal(false);
  });

  it('refuses a checkpoint of another origin than those it kept, even signed by a key it trusts under that name', async () => {
    await restartAfter(() => append('MW-0001'));
    // The log's key, trusted under a second name too: the grown tree of 13, signed as another log's.
    const pem = readFileSync(join(m.store.dataDir, 'keys', 'transparency-log-key.pem'), 'utf8');
    const state = JSON.parse(readFileSync(m.stateFile, 'utf8')) as { verifier_keys: string[] };
    state.verifier_keys.push(specVerifierKey('other.example/watchcat/events', createPrivateKey(pem)));
    writeFileSync(m.stateFile, JSON.stringify(state));
    const result = await watchServed(await reoriginated('other.example/watchcat/events', 'other.example/watchcat/events'));
    expect(result.code, result.out.join('\n')).to.equal(1);
    expect(result.notes.at(-1)).to.match(/its origin other\.example\/watchcat\/events is not localhost\/watchcat\/events, the origin of the checkpoints this state file kept: another log$/);
  });

  it('names a fork when an event was edited and the log grew since: the new tree does not extend the old', async () => {
    await rewriteAndRestart(async () => {
      sql(`UPDATE events SET data = replace(data, '1250000', '1') WHERE position = 4`);
      await append('MW-0002');
    });
    const result = await watch();
    expect(result.code).to.equal(1);
    expect(result.notes.join('\n')).to.contain('fork: the tree of 13 leaves does not extend the tree of 12 leaves');
  });

  it('names a rollback when the newest event was removed', async () => {
    await rewriteAndRestart(() => sql('DELETE FROM events WHERE position = 12'));
    const result = await watch();
    expect(result.code).to.equal(1);
    expect(result.notes.join('\n')).to.match(/rollback: .* now signs a tree of 11 leaves, after one of 12/);
    // The one tree it saw is larger than the new one, which therefore extends none of them.
    expect(result.notes.join('\n')).to.match(/it extends no tree this monitor saw, not even the one of 12 leaves seen at [0-9T:.-]+Z: the history was rewritten in leaves 0 to 11/);
  });

  it('counts a consistency proof the service refuses as not extending, when it locates a fork among the trees it saw', async () => {
    await restartAfter(() => append('MW-0101'));
    expect((await watch()).code).to.equal(0);
    await rewriteAndRestart(() => sql(`UPDATE events SET data = replace(data, 'MW-0101', 'MW-0666') WHERE position = 13`));
    const base = `http://127.0.0.1:${m.service!.ports.public}`;
    // In front of the service: its answers, except every consistency proof, refused.
    const proxy = createServer((request, response) => {
      if (request.url!.startsWith('/api/public/transparency/consistency')) return void response.writeHead(503).end();
      void fetch(`${base}${request.url}`).then(async (answer) => response.writeHead(answer.status).end(await answer.text()));
    }).listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    try {
      const result = await watchcat(m.store.env, 'audit', 'log', 'watch', `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, '--state', m.stateFile, '--once');
      expect(result.code).to.equal(1);
      expect(result.notes.join('\n')).to.match(/fork: .* signs two trees of 13 leaves/);
      // Without the proofs the new tree is shown to extend none of the trees seen, not even the one of 12 leaves.
      expect(result.notes.join('\n')).to.match(/it extends no tree this monitor saw, not even the one of 12 leaves seen at /);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('names the leaf rewritten among the trees it saw, for an event edited, removed, moved or inserted in the store', async () => {
    // Trees of 12 to 15 leaves seen, one event appended (MW-0101 to MW-0103, positions 13 to 15) between two looks.
    for (const serial of ['MW-0101', 'MW-0102', 'MW-0103']) {
      await restartAfter(() => append(serial));
      expect((await watch()).code, serial).to.equal(0);
    }
    await stop();
    const untouched = `${m.store.file}.untouched`;
    copyFileSync(m.store.file, untouched);
    // Each rewrite changes leaf 13 (position 14, MW-0102) and what follows, and keeps leaves 0 to 12.
    const rewrites: Record<string, { statements: string[]; failure: RegExp }> = {
      edited: {
        statements: [`UPDATE events SET data = replace(data, 'MW-0102', 'MW-0666') WHERE position = 14`],
        failure: /fork: .* signs two trees of 15 leaves/,
      },
      removed: {
        statements: ['DELETE FROM events WHERE position = 14'],
        failure: /rollback: .* now signs a tree of 14 leaves, after one of 15/,
      },
      moved: {
        statements: ['UPDATE events SET position = 1000 WHERE position = 14', 'UPDATE events SET position = 14 WHERE position = 15', 'UPDATE events SET position = 15 WHERE position = 1000'],
        failure: /fork: .* signs two trees of 15 leaves/,
      },
      inserted: {
        statements: [
          'UPDATE events SET position = position + 1000 WHERE position >= 14', 'UPDATE events SET position = position - 999 WHERE position >= 1014',
          `INSERT INTO events (position, stream, revision, id, type, data, metadata, stream_hash, chain_hash)
             SELECT 14, 'serial-MW-0999', 0, 'inserted-event', type, replace(data, 'MW-0101', 'MW-0999'), metadata, stream_hash, chain_hash FROM events WHERE position = 13`,
        ],
        failure: /fork: the tree of 16 leaves does not extend the tree of 15 leaves/,
      },
    };
    for (const [what, { statements, failure }] of Object.entries(rewrites)) {
      copyFileSync(untouched, m.store.file);
      await rewriteAndRestart(() => statements.forEach(sql));
      const result = await watch();
      expect(result.code, what).to.equal(1);
      expect(result.notes.join('\n'), what).to.match(failure)
        .and.to.match(/it extends the tree of 13 leaves seen at [0-9T:.-]+Z, not the one of 14 seen at [0-9T:.-]+Z: the history was rewritten in leaf 13 \(/);
      await stop();
    }
    const kept = JSON.parse(readFileSync(m.stateFile, 'utf8')) as { checkpoints: { size: number }[] };
    expect(kept.checkpoints.map((c) => c.size), 'a failed check keeps the state as it was').to.deep.equal([12, 13, 14, 15]);
  });

  it('prints the first checkpoint it sees with its size and root alone, and takes the URL with a trailing slash', async () => {
    const fresh = await watchcat(m.store.env, 'audit', 'log', 'watch', `http://127.0.0.1:${m.service!.ports.public}/`, '--state', join(m.store.dataDir, 'fresh.json'), '--once');
    expect(fresh.code, fresh.notes.join('\n')).to.equal(0);
    expect(fresh.out).to.have.length(1);
    expect(fresh.out[0]).to.match(/: 12 leaves, root [A-Za-z0-9+/]{43}=$/);
  });

  it('takes a state file again with the key it was kept under, as the service serves it; refuses it under another key', async () => {
    const base = `http://127.0.0.1:${m.service!.ports.public}`;
    // As an auditor passes it: the served text, without the line's end a shell's $(curl ...) strips.
    const served = (await (await fetch(`${base}/.well-known/transparency/key`)).text()).trim();
    const same = await watchcat(m.store.env, 'audit', 'log', 'watch', base, '--state', m.stateFile, '--once', '--key', served);
    expect(same.code, same.notes.join('\n')).to.equal(0);
    expect(same.out[0]).to.match(/: 12 leaves, unchanged$/);
    const other = specVerifierKey('localhost/watchcat/events', createPrivateKey(newSigningKeyPem()));
    const refused = await watchcat(m.store.env, 'audit', 'log', 'watch', base, '--state', m.stateFile, '--once', '--key', other);
    expect(refused.code).to.equal(1);
    expect(refused.notes.at(-1)).to.contain(`the state file ${m.stateFile} was kept under other verifier keys`);
  });

  it('fails, saying why, on a state file that is not its JSON, a service it cannot reach and a policy file it cannot read', async () => {
    const base = `http://127.0.0.1:${m.service!.ports.public}`;
    const garbled = join(m.store.dataDir, 'garbled.json');
    writeFileSync(garbled, 'not json\n');
    const notJson = await watchcat(m.store.env, 'audit', 'log', 'watch', base, '--state', garbled, '--once');
    expect(notJson.code).to.equal(1);
    expect(notJson.notes.at(-1)).to.equal(`watchcat: the state file ${garbled} is not the JSON this monitor writes`);
    // Port 1 (tcpmux) is not served here: the connection is refused.
    const unreachable = await watchcat(m.store.env, 'audit', 'log', 'watch', 'http://127.0.0.1:1', '--state', join(m.store.dataDir, 'none.json'), '--once');
    expect(unreachable.code).to.equal(1);
    expect(unreachable.notes.at(-1)).to.match(/^watchcat: cannot reach http:\/\/127\.0\.0\.1:1\/\.well-known\/transparency\/key: /);
    const absent = join(m.store.dataDir, 'absent.policy');
    const noPolicy = await watchcat(m.store.env, 'audit', 'log', 'watch', base, '--state', m.stateFile, '--once', '--policy', absent);
    expect(noPolicy.code).to.equal(1);
    expect(noPolicy.notes.at(-1)).to.equal(`watchcat: cannot read the witness policy ${absent}: ENOENT`);
  });

  it('keeps no state from a first check that fails: a key given wrongly is not pinned for the next run', async () => {
    const base = `http://127.0.0.1:${m.service!.ports.public}`;
    const fresh = join(m.store.dataDir, 'failed-first.json');
    const other = specVerifierKey('localhost/watchcat/events', createPrivateKey(newSigningKeyPem()));
    const failed = await watchcat(m.store.env, 'audit', 'log', 'watch', base, '--state', fresh, '--once', '--key', other);
    expect(failed.code).to.equal(1);
    expect(existsSync(fresh)).to.equal(false);
  });

  it('without --once checks again every --every seconds, until a check fails', async () => {
    const base = `http://127.0.0.1:${m.service!.ports.public}`;
    // In front of the service: its answers, except that the third checkpoint asked for is refused.
    let checkpoints = 0;
    const proxy = createServer((request, response) => {
      if (request.url === '/.well-known/transparency/checkpoint' && ++checkpoints === 3) return void response.writeHead(503).end();
      void fetch(`${base}${request.url}`).then(async (answer) => response.writeHead(answer.status).end(await answer.text()));
    }).listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    try {
      const started = Date.now();
      const looped = await watchcat(m.store.env, 'audit', 'log', 'watch', `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, '--state', join(m.store.dataDir, 'loop.json'), '--every', '1');
      // Two waits of a second between the three checks: a lower bound only, however slow the machine.
      expect(Date.now() - started).to.be.at.least(2_000);
      expect(looped.code).to.equal(1);
      expect(looped.out).to.have.length(2);
      expect(looped.out[1]).to.match(/: 12 leaves, unchanged$/);
      expect(looped.notes.at(-1)).to.match(/checkpoint answered 503$/);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('takes --every as a number of seconds above 0, and refuses anything else as a usage error', async () => {
    const base = `http://127.0.0.1:${m.service!.ports.public}`;
    for (const every of ['abc', '0', '-1', 'Infinity']) {
      const refused = await watchcat(m.store.env, 'audit', 'log', 'watch', base, '--state', m.stateFile, '--once', '--every', every);
      expect(refused.code, every).to.equal(2);
      expect(refused.notes.join('\n'), every).to.contain('expected a number of seconds above 0');
    }
    const taken = await watchcat(m.store.env, 'audit', 'log', 'watch', base, '--state', m.stateFile, '--once', '--every', '0.5');
    expect(taken.code, taken.notes.join('\n')).to.equal(0);
  });
});
