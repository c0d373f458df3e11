/**
 * Runs a TypeScript child process (through tsx) for the crash tests, reads its `ACK <id> <position>` lines and
 * SIGKILLs it at a chosen moment, as a power cut or the OOM killer would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface KillableChild {
  child: ChildProcess;
  /** Acknowledgements seen so far: id -> position. */
  acks: Map<string, number>;
  /** Resolves on the first line the child prints (READY or a first ACK). */
  started: Promise<void>;
  /** Resolves with the exit signal or code once the child is gone. */
  exited: Promise<NodeJS.Signals | number | null>;
  /** Lines the child printed that are not acknowledgements (progress, errors). */
  lines: string[];
  kill(): Promise<NodeJS.Signals | number | null>;
}

export function spawnTs(script: string, args: string[], env: NodeJS.ProcessEnv = {}): KillableChild {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env },
  });
  const acks = new Map<string, number>();
  const lines: string[] = [];
  let markStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => { markStarted = resolve; });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once('exit', (code, signal) => {
    markStarted();
    resolve(signal ?? code);
  }));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    markStarted();
    const [word, id, position] = line.split(' ');
    if (word === 'ACK' && id) acks.set(id, Number(position));
    else lines.push(line);
  });
  createInterface({ input: child.stderr! }).on('line', (line) => lines.push(line));
  return {
    child, acks, started, exited, lines,
    kill: () => {
      child.kill('SIGKILL');
      return exited;
    },
  };
}
