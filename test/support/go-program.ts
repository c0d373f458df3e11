/**
 * The small Go programs under test/interop (the `Go` leg, test/support/legs.ts): each built once per test process
 * from its folder, its modules through the Go module proxy (or Go's module cache), and run with one JSON request on
 * stdin and one JSON answer on stdout.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, join } from 'node:path';

/** `$GO`, else `go` on the PATH, else Go's default install: where scripts/with-ferretdb.sh looks too. */
function goBinary(): string | undefined {
  const onPath = (process.env['PATH'] ?? '').split(delimiter).map((dir) => join(dir, 'go')).find((file) => existsSync(file));
  return process.env['GO'] || onPath || (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
}

function run(file: string, args: string[], options: { cwd?: string; input?: string } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(file, args, { cwd: options.cwd, maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(' ')}: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
    if (options.input !== undefined) child.stdin!.end(options.input);
  });
}

const builds = new Map<string, Promise<{ program: string } | { why: string }>>();

/**
 * The program of the folder `source` (absolute), built once per test process (removed when the process ends); or
 * why it cannot be had, when Go or its modules are missing. `needs` names the modules, for that message. `target`:
 * the package to build, the folder's own by default, or a tool its go.mod names (a program of a module from the
 * proxy, built from that module's sources in Go's module cache: the repository keeps only go.mod and go.sum).
 */
export function buildGoProgram(source: string, needs: string, target = '.'): Promise<{ program: string } | { why: string }> {
  const key = `${source}#${target}`;
  let built = builds.get(key);
  if (built === undefined) {
    built = build(source, needs, target);
    builds.set(key, built);
  }
  return built;
}

async function build(source: string, needs: string, target: string): Promise<{ program: string } | { why: string }> {
  const go = goBinary();
  if (go === undefined) return { why: 'no Go toolchain (not $GO, nor go on the PATH, nor /usr/local/go/bin/go)' };
  const name = basename(target === '.' ? source : target);
  const dir = mkdtempSync(join(tmpdir(), `watchcat-go-${name}-`));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const program = join(dir, name);
  try {
    await run(go, ['build', '-o', program, target], { cwd: source });
  } catch (error) {
    return { why: `cannot build ${target === '.' ? `test/interop/${name}` : target} with ${needs}: ${(error as Error).message.split('\n')[0]}` };
  }
  return { program };
}

/** Runs a built program with `request` as JSON on its stdin; its stdout read as JSON. */
export async function askGoProgram<T>(program: string, request: unknown): Promise<T> {
  return JSON.parse(await run(program, [], { input: JSON.stringify(request) })) as T;
}
