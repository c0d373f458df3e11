/** Runs a TypeScript script of the benchmark in a child process and parses the JSON line it prints last. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export function runJsonChild<T>(script: URL, args: readonly string[], nodeOptions: readonly string[] = []): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeOptions, '--import', 'tsx', fileURLToPath(script), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.on('error', reject);
    child.on('exit', (code) => {
      const last = output.trim().split('\n').at(-1) ?? '';
      if (code !== 0) reject(new Error(`${fileURLToPath(script)} ${args.join(' ')} exited with ${code}`));
      else resolve(JSON.parse(last) as T);
    });
  });
}
