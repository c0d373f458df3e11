/**
 * A witness policy (C2SP tlog-policy; docs/audit.md, "Witness policy") required by `receipt verify`, `audit log
 * watch` and `audit log verify` (`--policy FILE`), against the embedded service (all-in-one.ts) configured with
 * TRANSPARENCY_WITNESSES: two of three witnesses listed in the policies are the service's, so its checkpoint carries
 * their two cosignatures and no third. A policy asking 2 of the 3 is met and each command says by whom; one asking
 * all 3 is not, and each command exits 1 naming the witnesses that did cosign; so is a policy whose log is another.
 */
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { startWatchcat, type RunningWatchcat } from '../../all-in-one.ts';
import { loadConfig } from '../../shared/config/config.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { parseNote, parseVerifierKey, verifierKey } from '../../shared/read-model/transparency/signed-note.ts';
import { logKeyFile } from '../../read-api/transparency/log-key.ts';
import { Witness, type WitnessedTree } from '../../services/witness/witness.ts';
import { witnessApp } from '../../services/witness/witness-app.ts';
import { watchcat as runIn } from '../audit/support/watchcat-run.ts';
import { keepReceipt } from '../support/kept-receipt.ts';
import { untilRegistryFresh } from '../support/registry-fresh.ts';
import { until } from '../support/until.ts';

const ORIGIN = 'watch.example/watchcat/events';

describe('witness policy: receipt verify, audit log watch and audit log verify require its quorum', function () {
  this.timeout(90_000);
  let dataDir: string;
  let service: RunningWatchcat;
  let api: string;
  let receipt: string;
  const servers: Server[] = [];
  const policies: Record<string, string> = {};

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'watchcat-witness-policy-'));
    // The log's key written first, where the service takes it from, so that the witnesses know it before it starts.
    const logKey = generateKeyPairSync('ed25519').privateKey;
    mkdirSync(dirname(logKeyFile(dataDir)), { recursive: true, mode: 0o700 });
    writeFileSync(logKeyFile(dataDir), logKey.export({ format: 'pem', type: 'pkcs8' }) as string, { mode: 0o600 });
    chmodSync(dirname(logKeyFile(dataDir)), 0o700);
    const logVkey = verifierKey(ORIGIN, logKey);
    const witnesses = await Promise.all(['w1', 'w2', 'w3'].map(async (name) => {
      const trees = new Map<string, WitnessedTree>();
      const witness = new Witness({
        name: `witness.example/${name}`, key: generateKeyPairSync('ed25519').privateKey, logs: [parseVerifierKey(logVkey)],
        store: { get: (origin) => trees.get(origin), put: async (origin, tree) => { trees.set(origin, tree); } },
      });
      const server = createServer(witnessApp(witness, createLogger('silent', 'witness')).callback()).listen(0, '127.0.0.1');
      servers.push(server);
      await once(server, 'listening');
      return { name, vkey: witness.verifierKey, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    }));
    const listed = witnesses.map((w) => `witness ${w.name} ${w.vkey} ${w.url}`).join('\n');
    const write = (name: string, text: string) => {
      policies[name] = join(dataDir, `${name}.policy`);
      writeFileSync(policies[name]!, text);
    };
    write('two', `log ${logVkey}\n${listed}\ngroup all-three 2 w1 w2 w3\nquorum all-three\n`);
    write('all', `log ${logVkey}\n${listed}\ngroup all-three all w1 w2 w3\nquorum all-three\n`);
    write('other-log', `log ${verifierKey(ORIGIN, generateKeyPairSync('ed25519').privateKey)}\nquorum none\n`);
    service = await startWatchcat(
      loadConfig({
        DATA_DIR: dataDir, PORT: '0', OPS_PORT: '0', ADMIN_PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '100000',
        PUBLIC_BASE_URL: 'https://watch.example', LOG_LEVEL: 'silent',
        // Two of the three: the third never sees the log.
        TRANSPARENCY_WITNESSES: witnesses.slice(0, 2).map((w) => `${w.url} ${w.vkey}`).join(', '),
      }),
      createLogger('silent', 'witness-policy-test'),
    );
    api = `http://127.0.0.1:${service.ports.public}`;
    await untilRegistryFresh(api);
    receipt = join(dataDir, 'receipt.txt');
    await keepReceipt(`${api}/api/public/verify/AUR-0001`, receipt);
    await until('the checkpoint served with two cosignatures', async () =>
      parseNote(await (await fetch(`${api}/transparency/checkpoint`)).text()).signatures.length === 3, 15_000);
  });
  after(async () => {
    await service?.close();
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  const cli = (...args: string[]) => runIn({ LOG_LEVEL: 'silent', PORT: String(service.ports.public), DATA_DIR: dataDir }, ...args);
  const refusal = /does not meet the witness policy's quorum \(all-three\): cosigned by w1, w2$/;
  const met = 'witnesses: the checkpoint is cosigned by w1, w2, as the policy\'s quorum (all-three) requires';

  it('receipt verify: holds under a policy of 2 of 3, and exits 1 under one of all 3 or of another log', async () => {
    const verify = (policy: string) => cli('receipt', 'verify', receipt, '--jwks', `${api}/.well-known/jwks.json`, '--policy', policy);
    const held = await verify(policies['two']!);
    expect(held.code, held.notes.join('\n')).to.equal(0);
    expect(held.out.at(-1)).to.equal(met);
    const all = await verify(policies['all']!);
    expect(all.code).to.equal(1);
    expect(all.notes.at(-1)).to.match(refusal);
    const other = await verify(policies['other-log']!);
    expect(other.notes.at(-1)).to.contain('signed by no log of the witness policy');
  });

  it('audit log watch: takes the checkpoint under a policy of 2 of 3, and exits 1 under one of all 3', async () => {
    const watch = (policy: string, state: string) => cli('audit', 'log', 'watch', api, '--once', '--state', join(dataDir, state), '--policy', policy);
    const held = await watch(policies['two']!, 'two.json');
    expect(held.code, held.notes.join('\n')).to.equal(0);
    const all = await watch(policies['all']!, 'all.json');
    expect(all.code).to.equal(1);
    expect(all.notes.at(-1)).to.match(refusal);
  });

  it('audit log verify: an export matches the cosigned checkpoint under a policy of 2 of 3 (its log standing for --key), not under one of all 3', async () => {
    const exported = join(dataDir, 'export.ndjson');
    expect((await cli('export', '--out', exported)).code).to.equal(0);
    const checkpoint = join(dataDir, 'checkpoint.note');
    writeFileSync(checkpoint, await (await fetch(`${api}/transparency/checkpoint`)).text());
    const held = await cli('audit', 'log', 'verify', exported, '--checkpoint', checkpoint, '--policy', policies['two']!);
    expect(held.code, held.notes.join('\n')).to.equal(0);
    expect(held.out[0]).to.equal(met);
    expect(held.notes.join('\n')).not.to.contain('signature not checked');
    const all = await cli('audit', 'log', 'verify', exported, '--checkpoint', checkpoint, '--policy', policies['all']!);
    expect(all.code).to.equal(1);
    expect(all.notes.at(-1)).to.match(refusal);
  });
});
