/**
 * `watchcat witness` as a real process (docs/audit.md, "Witnesses"): it answers C2SP tlog-witness over HTTP, keeps
 * the tree it cosigned in its state file across a SIGKILL (the restarted witness answers 409 with that size, in the
 * spec's `text/x.tlog.size`, to a log that starts again from 0), keeps its key, refuses a fork with an alert in its
 * log, refuses to start on a state it cannot read or that another live witness holds, and ignores what a crash
 * mid-write leaves beside its state.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { checkpointBody } from '../../shared/read-model/transparency/checkpoint.ts';
import { MemoryTree } from '../../shared/read-model/transparency/memory-tree.ts';
import { signNote } from '../../shared/read-model/transparency/signed-note.ts';
import { specVerifierKey } from '../support/note-keys.ts';
import { startWatchcatProcess, type WatchcatProcess } from '../support/watchcat-process.ts';

const ORIGIN = 'watch.example/watchcat/events';
const NAME = 'witness.example/w1';
const CLI = 'services/cli/watchcat.ts';

const treeOf = (size: number, tag = 'a') => {
  const tree = new MemoryTree();
  for (let i = 0; i < size; i += 1) tree.append(`${tag}-${i}`);
  return tree;
};

describe('witness: `watchcat witness` as a process, its state durable across a crash', function () {
  this.timeout(60_000);
  const logKey = generateKeyPairSync('ed25519').privateKey;
  let dir: string;
  const running: WatchcatProcess[] = [];
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'watchcat-witness-')); });
  afterEach(async () => {
    for (const child of running.splice(0)) await child.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (): Promise<{ witness: WatchcatProcess; url: string; key: string }> => {
    const witness = startWatchcatProcess('witness', CLI, { LOG_LEVEL: 'info' }, [
      'witness', '--name', NAME, '--log', specVerifierKey(ORIGIN, logKey), '--state', join(dir, 'state.json'), '--key', join(dir, 'key.pem'), '--port', '0',
    ]);
    running.push(witness);
    await witness.waitForLine(/listening on http:/);
    const url = /listening on (http:\/\/\S+)/.exec(witness.lines.find((line) => line.includes('listening on'))!)![1]!;
    const key = /verifier key (\S+)/.exec(witness.lines.find((line) => line.includes('verifier key'))!)![1]!;
    return { witness, url, key };
  };
  const add = (url: string, old: number, tree: MemoryTree, size = tree.size) => {
    const proof = old === 0 || old === size ? [] : tree.consistency(old, size);
    const note = signNote(checkpointBody({ origin: ORIGIN, size, root: tree.root(size) }), ORIGIN, logKey);
    const body = `old ${old}\n${proof.map((hash) => `${Buffer.from(hash).toString('base64')}\n`).join('')}\n${note}`;
    return fetch(`${url}/add-checkpoint`, { method: 'POST', body });
  };
  const exitOf = async (child: WatchcatProcess) => {
    if (child.child.exitCode === null) await once(child.child, 'exit');
    return child.child.exitCode;
  };

  it('cosigns, is SIGKILLed, and after a restart still holds its tree and key: 409 with its size to old size 0', async () => {
    const tree = treeOf(11);
    const first = await start();
    const cosigned = await add(first.url, 0, tree, 6);
    expect(cosigned.status).to.equal(200);
    expect(await cosigned.text()).to.match(new RegExp(`^\u2014 ${NAME} \\S+\n$`));
    await first.witness.kill();

    const second = await start();
    expect(second.key).to.equal(first.key);
    const conflict = await add(second.url, 0, tree, 11);
    expect(conflict.status).to.equal(409);
    expect(conflict.headers.get('content-type')).to.equal('text/x.tlog.size');
    expect(await conflict.text()).to.equal('6\n');
    expect((await add(second.url, 6, tree, 11)).status).to.equal(200);
    const monitored = await fetch(`${second.url}/${createHash('sha256').update(ORIGIN).digest('hex')}/checkpoint`);
    expect(await monitored.text()).to.include(`${ORIGIN}\n11\n${Buffer.from(tree.root()).toString('base64')}\n`);
    expect((await fetch(`${second.url}/add-checkpoint`)).status).to.equal(405);
  });

  it('refuses a fork, two trees at one size, and logs it as an alert', async () => {
    const { witness, url } = await start();
    expect((await add(url, 0, treeOf(7))).status).to.equal(200);
    const fork = await add(url, 7, treeOf(7, 'b'));
    expect(fork.status).to.equal(422);
    await witness.waitForLine(/witness refused a fork/);
    expect(JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')).logs[ORIGIN]).to.include({ size: 7, root: Buffer.from(treeOf(7).root()).toString('base64') });
  });

  it('will not start on a state another live witness holds, nor on one it cannot read; what a crash left beside it is ignored', async () => {
    const { witness } = await start();
    const rival = await start().catch((error: Error) => error);
    expect(String(rival)).to.match(/another witness \(process \d+\) uses this state/);
    await witness.stop();

    writeFileSync(join(dir, 'state.json.tmp'), '{"logs": {"half-writ');
    const afterCrash = await start();
    const size = await add(afterCrash.url, 3, treeOf(3));
    expect(await size.text()).to.equal('0\n');
    await afterCrash.witness.stop();

    writeFileSync(join(dir, 'state.json'), '{"logs": {"torn');
    const refused = startWatchcatProcess('witness', CLI, {}, ['witness', '--name', NAME, '--log', specVerifierKey(ORIGIN, logKey), '--state', join(dir, 'state.json'), '--key', join(dir, 'key.pem'), '--port', '0']);
    running.push(refused);
    expect(await exitOf(refused)).to.equal(1);
    expect(refused.lines.join('\n')).to.match(/is not the JSON a witness writes/);
    expect(readFileSync(join(dir, 'state.json'), 'utf8')).to.equal('{"logs": {"torn');
  });
});
