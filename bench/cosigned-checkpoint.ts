/**
 * From an event to a checkpoint cosigned by two local witnesses (issue 45, item 5; goal: p95 under 2 s):
 * `node --import tsx bench/cosigned-checkpoint.ts [samples] [--quick] [--seed N]` (50 samples, 10 with `--quick`;
 * about 30 s, 7 of them the service's first start). Set up as docs/audit.md ("Witnesses") has a deployment run
 * it, every part a real process: two `watchcat witness` (services/cli/watchcat.ts, each with its own DATA_DIR for its
 * key and state, told the log's verifier key), then `npm start`'s entry (main.ts, run from source) on a fresh
 * DATA_DIR, whose first start loads the demo catalogue, with `TRANSPARENCY_WITNESSES` listing both. The log's key is
 * written where the service takes it from before it starts, so that the witnesses know it (as
 * test/services/witness-policy.test.ts does). This process is only a client.
 *
 * Once the first checkpoint is cosigned by both, each sample reports the demo's authentic serial stolen, then
 * recovered, in turn, through the admin API as back-office tooling does (a `serials` key; the answer's `X-Position`),
 * and from that answer polls `/transparency/checkpoint` every POLL_MS. Two times are taken, by this process's
 * monotonic clock, at the arrival of the first answer that shows them: the checkpoint covers the event (its tree
 * size is at least the event's position: SQLite positions are 1, 2, ..., so position P is leaf P - 1, checked after
 * each sample by an inclusion proof by position), and that checkpoint also meets a C2SP tlog-policy of the log's key
 * and `group both all w1 w2` (shared/read-model/transparency/tlog-policy.ts: each witness's `cosignature/v1` line
 * found by the key it printed and verified), as `audit log watch --policy` would require. The service has no such
 * setting: a policy is the reader's. Their difference per sample is the witnesses' share. Samples are one at a time,
 * each after a random 0 to 200 ms gap (the signer looks at the tiles every 200 ms, docs/api.md, "Transparency log"),
 * so an append does not fall at one phase of its tick. A sample not cosigned by both within BOUND_MS fails the run
 * (exit 1). One JSON line, with the load average at start and end.
 */
import { generateKeyPairSync, randomBytes, randomInt } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { logKeyFile } from '../read-api/transparency/log-key.ts';
import { DEMO_SERIALS } from '../services/demo/demo-catalogue.ts';
import { between, seededRandom } from '../shared/random/seeded-random.ts';
import { verifierKey } from '../shared/read-model/transparency/signed-note.ts';
import { judgeNote, parsePolicy } from '../shared/read-model/transparency/tlog-policy.ts';
import { freePort } from '../test/support/redis-server.ts';
import { startWatchcatProcess, type WatchcatProcess } from '../test/support/watchcat-process.ts';
import { scratchDir } from './fixtures/bench-dir.ts';
import { latency, round } from './report/stats.ts';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const seedAt = args.indexOf('--seed');
const seed = seedAt < 0 ? randomInt(2 ** 31) : Number(args[seedAt + 1]);
const samples = Number(args.find((arg, i) => /^\d+$/.test(arg) && args[i - 1] !== '--seed') ?? (quick ? 10 : 50));
const POLL_MS = 10;
const GAP_MS = [0, 200] as const;
const BOUND_MS = 30_000;
/** The first start: the demo loaded, its projections and serial index built, on a loaded machine. */
const START_BOUND_MS = 300_000;
const GOAL_P95_MS = 2_000;
const ORIGIN = 'watch.example/watchcat/events';
const WITNESSES = ['w1', 'w2'] as const;
const SERIALS_KEY = randomBytes(24).toString('hex');
const SERIAL = DEMO_SERIALS.authentic;

const loadAverages = () => loadavg().map((value) => round(value, 2));
const atStart = loadAverages();
const scratch = scratchDir('cosigned-checkpoint');
const running: WatchcatProcess[] = [];
const lastLines = () => running.map((child) => `${child.name}:\n  ${child.lines.slice(-10).join('\n  ')}`).join('\n');

async function ok(response: Response): Promise<string> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${response.url} answered ${response.status} ${text}`);
  return text;
}

try {
  const logKey = generateKeyPairSync('ed25519').privateKey;
  const keyFile = logKeyFile(scratch.dir);
  mkdirSync(dirname(keyFile), { recursive: true, mode: 0o700 });
  writeFileSync(keyFile, logKey.export({ format: 'pem', type: 'pkcs8' }) as string, { mode: 0o600 });
  chmodSync(dirname(keyFile), 0o700);
  const logVkey = verifierKey(ORIGIN, logKey);

  const witnesses = await Promise.all(WITNESSES.map(async (name) => {
    const witness = startWatchcatProcess(`witness ${name}`, 'services/cli/watchcat.ts', { DATA_DIR: join(scratch.dir, name), LOG_LEVEL: 'warn' }, [
      'witness', '--name', `bench.example/${name}`, '--log', logVkey, '--port', '0',
    ]);
    running.push(witness);
    await witness.waitForLine(/listening on http:/, 60_000);
    const printed = (pattern: RegExp) => pattern.exec(witness.lines.find((line) => pattern.test(line))!)![1]!;
    return { name, url: printed(/listening on (http:\/\/\S+)/), vkey: printed(/verifier key (\S+)/) };
  }));
  const policy = parsePolicy(`log ${logVkey}\n${witnesses.map((w) => `witness ${w.name} ${w.vkey} ${w.url}`).join('\n')}\ngroup both all ${WITNESSES.join(' ')}\nquorum both\n`);

  const [port, opsPort, adminPort] = [await freePort(), await freePort(), await freePort()];
  const service = startWatchcatProcess('watchcat', 'main.ts', {
    DATA_DIR: scratch.dir, PORT: String(port), OPS_PORT: String(opsPort), ADMIN_PORT: String(adminPort), HOST: '127.0.0.1',
    // Nothing of this machine's environment: the embedded mode's own stores.
    EVENTSTORE_URL: '', MONGODB_URL: '', REDIS_URL: '', PUBLIC_BASE_URL: 'https://watch.example', LOG_LEVEL: 'warn',
    // The polls every POLL_MS (a checkpoint falls under the file limit, a proof under the general one) never refused.
    RATE_LIMIT_PER_MINUTE: '1000000000', FILE_RATE_LIMIT_PER_MINUTE: '1000000000',
    ADMIN_API_KEYS: `${SERIALS_KEY}:serials`,
    TRANSPARENCY_WITNESSES: witnesses.map((w) => `${w.url} ${w.vkey}`).join(', '),
  });
  running.push(service);
  const api = `http://127.0.0.1:${port}`;
  const admin = `http://127.0.0.1:${adminPort}`;

  /** The latest checkpoint as this process sees it: its size, whether it meets the policy, when its answer arrived. */
  let judged = { text: '', size: 0, cosigned: false };
  async function checkpoint(): Promise<{ size: number; cosigned: boolean; at: number }> {
    const response = await fetch(`${api}/transparency/checkpoint`);
    const text = await response.text();
    const at = performance.now();
    if (!response.ok) throw new Error(`the checkpoint answered ${response.status} ${text}`);
    if (text !== judged.text) {
      const verdict = judgeNote(policy, text);
      if (!verdict.logSigned) throw new Error(`a checkpoint not signed by the log's key: ${text}`);
      judged = { text, size: Number(text.split('\n')[1]), cosigned: verdict.quorum };
    }
    return { size: judged.size, cosigned: judged.cosigned, at };
  }

  const starting = performance.now();
  for (;;) {
    const seen = await checkpoint().catch(() => undefined);
    if (seen?.cosigned) break;
    if (service.child.exitCode !== null || performance.now() - starting > START_BOUND_MS) {
      throw new Error(`no checkpoint cosigned by both witnesses within ${START_BOUND_MS} ms of the start\n${lastLines()}`);
    }
    await sleep(100);
  }
  const startMs = performance.now() - starting;
  const sizeAtStart = judged.size;

  const random = seededRandom(seed);
  const appendMs: number[] = [];
  const coveredMs: number[] = [];
  const cosignedMs: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    await sleep(between(random, GAP_MS[0], GAP_MS[1]));
    const sent = performance.now();
    const answer = await fetch(`${admin}/admin/serials/${SERIAL}/${i % 2 === 0 ? 'stolen' : 'recovered'}`, {
      method: 'POST', headers: { authorization: `Bearer ${SERIALS_KEY}`, 'content-type': 'application/json' }, body: '{}',
    });
    await ok(answer);
    const answeredAt = performance.now();
    const position = Number(answer.headers.get('x-position'));
    appendMs.push(answeredAt - sent);
    let covered: number | undefined;
    for (;;) {
      const seen = await checkpoint();
      if (seen.size >= position) {
        covered ??= seen.at - answeredAt;
        if (seen.cosigned) {
          coveredMs.push(covered);
          cosignedMs.push(seen.at - answeredAt);
          break;
        }
      }
      if (performance.now() - answeredAt > BOUND_MS) {
        throw new Error(`sample ${i}: the event at position ${position} was ${covered === undefined ? 'not covered' : 'covered but not cosigned by both witnesses'} within ${BOUND_MS} ms (checkpoint:\n${judged.text})\n${lastLines()}`);
      }
      await sleep(POLL_MS);
    }
    // The log's rule, position P at leaf P - 1, as the log itself answers it.
    const proof = JSON.parse(await ok(await fetch(`${api}/api/public/transparency/inclusion?position=${position}&tree_size=${judged.size}`))) as { leaf_index: number };
    if (proof.leaf_index !== position - 1) throw new Error(`position ${position} is leaf ${proof.leaf_index}, not ${position - 1}`);
  }

  const cosigned = latency(cosignedMs);
  process.stdout.write(`${JSON.stringify({
    quick, samples, seed, poll_ms: POLL_MS, gap_ms: GAP_MS, bound_ms: BOUND_MS, witnesses: WITNESSES.length, quorum: 'all of 2',
    load_average: { at_start: atStart, at_end: loadAverages() },
    first_start_to_cosigned_ms: round(startMs),
    tree_size: { at_start: sizeAtStart, at_end: judged.size },
    append_ms: latency(appendMs),
    event_to_covered_ms: latency(coveredMs),
    event_to_cosigned_ms: cosigned,
    witnesses_share_ms: latency(cosignedMs.map((ms, i) => ms - coveredMs[i]!)),
    goal_p95_under_2s: cosigned.p95 < GOAL_P95_MS,
  })}\n`);
} finally {
  for (const child of running.reverse()) await child.stop();
  scratch.remove();
}
