/** Spawns the load-generating process and sends it jobs one at a time. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { LoadJob, LoadResult } from './load-protocol.ts';

const RUNNER = fileURLToPath(new URL('./load-runner.ts', import.meta.url));

export interface LoadClient {
  run(job: LoadJob): Promise<LoadResult>;
  close(): Promise<void>;
}

export function startLoadClient(): LoadClient {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['--import', 'tsx', RUNNER], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stderr.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  const lines: Interface = createInterface({ input: child.stdout });
  const waiting: ((line: string) => void)[] = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  let exited = false;
  child.on('exit', () => {
    exited = true;
    for (const resolve of waiting.splice(0)) resolve(JSON.stringify({ error: 'load runner exited' }));
  });

  return {
    run(job) {
      if (exited) return Promise.reject(new Error('load runner exited'));
      return new Promise<LoadResult>((resolve, reject) => {
        waiting.push((line) => {
          const answer = JSON.parse(line) as LoadResult | { error: string };
          if ('error' in answer) reject(new Error(`load runner: ${answer.error}`));
          else resolve(answer);
        });
        child.stdin.write(`${JSON.stringify(job)}\n`);
      });
    },
    close() {
      if (exited) return Promise.resolve();
      return new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.stdin.end();
      });
    },
  };
}
