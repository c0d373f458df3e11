/**
 * litewitness, the C2SP tlog-witness of filippo.io/torchwood (v0.6.1, from the Go module proxy; test/interop/litewitness
 * holds only its go.mod and go.sum), run for the interop tests of the witness: a witness this project did not write.
 * As its README says it runs: its Ed25519 key in a dedicated ssh-agent, its state in a SQLite file, listening on
 * loopback. Its companion witnessctl cannot be built here (a module it needs is not served), so the log is added
 * as witnessctl's `add-log` and `add-key` do it, by the two rows they insert into that file (size 0 with the empty
 * tree's root, and the log's verifier key), while litewitness runs, which its README allows.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { EMPTY_ROOT } from '../../shared/read-model/transparency/merkle.ts';
import { buildGoProgram } from './go-program.ts';

const SOURCE = fileURLToPath(new URL('../interop/litewitness', import.meta.url));
const execFileAsync = promisify(execFile);

export const buildLitewitness = (): Promise<{ program: string } | { why: string }> =>
  buildGoProgram(SOURCE, 'filippo.io/torchwood v0.6.1', 'filippo.io/torchwood/cmd/litewitness');

export interface Litewitness {
  url: string;
  /** Its verifier key, as it logs it at start. */
  verifierKey: string;
  lines: string[];
  /** SIGKILL, as a power cut. */
  kill(): Promise<void>;
}

const ended = (child: ChildProcess) => new Promise<void>((resolve) => {
  if (child.exitCode !== null || child.signalCode !== null) resolve();
  else child.once('exit', () => resolve());
});

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The ssh-agent holding a witness key of `dir` (generated there once), for every start of litewitness on `dir`. */
export async function startKeyAgent(dir: string): Promise<{ socket: string; fingerprint: string; stop(): Promise<void> }> {
  const key = join(dir, 'witness-key');
  if (!existsSync(key)) await execFileAsync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'litewitness', '-f', key]);
  const socket = join(dir, 'agent.sock');
  const agent = spawn('ssh-agent', ['-D', '-a', socket], { stdio: 'ignore' });
  for (let tries = 0; !existsSync(socket); tries += 1) {
    if (tries > 200 || agent.exitCode !== null) throw new Error('ssh-agent did not start');
    await sleep(25);
  }
  await execFileAsync('ssh-add', ['-q', key], { env: { ...process.env, SSH_AUTH_SOCK: socket } });
  const { stdout } = await execFileAsync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${key}.pub`]);
  const fingerprint = /SHA256:\S+/.exec(stdout)![0];
  return { socket, fingerprint, stop: async () => { agent.kill('SIGTERM'); await ended(agent); } };
}

/**
 * Starts litewitness on the state in `dir` with the key `agent` holds; with `log`, adds that log (origin and
 * verifier key) as witnessctl would, the first time.
 */
export async function startLitewitness(
  program: string, dir: string, name: string, agent: { socket: string; fingerprint: string }, log?: { origin: string; verifierKey: string },
): Promise<Litewitness> {
  const port = await freePort();
  const db = join(dir, 'litewitness.db');
  const child = spawn(program, ['-name', name, '-db', db, '-ssh-agent', agent.socket, '-key', agent.fingerprint, '-listen', `127.0.0.1:${port}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => lines.push(line));
  for (let tries = 0; !lines.some((line) => line.includes('msg=listening')); tries += 1) {
    if (tries > 400 || child.exitCode !== null) throw new Error(`litewitness did not start: ${lines.join('\n')}`);
    await sleep(25);
  }
  const verifierKey = /vkey=(\S+)/.exec(lines.find((line) => line.includes('vkey='))!)![1]!;
  if (log) {
    const sqlite = new Database(db);
    try {
      sqlite.prepare('INSERT INTO log (origin, tree_size, tree_hash) VALUES (?, 0, ?)').run(log.origin, Buffer.from(EMPTY_ROOT).toString('base64'));
      sqlite.prepare('INSERT INTO key (origin, key) VALUES (?, ?)').run(log.origin, log.verifierKey);
    } finally {
      sqlite.close();
    }
  }
  return {
    url: `http://127.0.0.1:${port}`, verifierKey, lines,
    kill: async () => { child.kill('SIGKILL'); await ended(child); },
  };
}
