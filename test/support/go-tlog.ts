/**
 * Go's golang.org/x/mod/sumdb/tlog and note, through the small program in test/interop/tlog: an implementation of
 * the transparency log this project did not write. Modules come through the Go module proxy (or Go's module cache).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = fileURLToPath(new URL('../interop/tlog/', import.meta.url));

export interface GoRequest {
  entries: string[];
  inclusion: Array<{ index: number; size: number; proof: string[] }>;
  consistency: Array<{ from: number; to: number; proof: string[] }>;
  notes: string[];
  verifier_key: string;
  /** Tiles to read from Go's tree and compare (`data` empty: only Go's path for it). */
  tiles: Array<{ level: number; index: number; width: number; data: string }>;
  /** A text for Go to sign with a key it generates: answered as `go_note` and `go_verifier_key`. */
  sign_text?: string;
  /** Notes to open each with its own verifier key: answered as `keyed_notes`. */
  keyed_notes?: Array<{ note: string; verifier_key: string }>;
  /** Signer keys (note.NewSigner's format) Go signs `sign_text` with, in this order: answered as `go_signed`. */
  sign_keys?: string[];
  /**
   * A running service whose hash tiles Go fetches over HTTP (`url` + /transparency/tile/...) for the tree of `size`
   * leaves and `root` (base64), each checked against that tree by tlog.TileHashReader: answered as `served`.
   */
  served?: { url: string; size: number; root: string; indexes: number[] };
}

/** The root and the proof of each leaf asked for, Go read through the served tiles; the paths it fetched. */
export interface GoServed { error: string; root: string; proofs: string[][]; paths: string[] }

/** What note.Open made of a note: the checkpoint it read, and how many signatures it verified and could not. */
export interface GoOpened { error: string; origin: string; size: number; root: string; root_matches: boolean; verified: number; unverified: number }

export interface GoAnswer {
  roots: string[];
  inclusion: Array<{ error: string; go_proof: string[] }>;
  consistency: Array<{ error: string; go_proof: string[] }>;
  notes: GoOpened[];
  keyed_notes: GoOpened[];
  go_signed: string;
  tiles: Array<{ path: string; go_data: string; error: string }>;
  go_note: string;
  go_verifier_key: string;
  served?: GoServed;
}

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

let built: Promise<{ program: string } | { why: string }> | undefined;

/**
 * Builds the program once per test process (removed when the process ends); resolves to why it cannot be had
 * instead when Go or its modules are missing.
 */
export function buildGoTlog(): Promise<{ program: string } | { why: string }> {
  return (built ??= build());
}

async function build(): Promise<{ program: string } | { why: string }> {
  const go = goBinary();
  if (go === undefined) return { why: 'no Go toolchain (not $GO, nor go on the PATH, nor /usr/local/go/bin/go)' };
  const dir = mkdtempSync(join(tmpdir(), 'watchcat-go-tlog-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const program = join(dir, 'tlog-interop');
  try {
    await run(go, ['build', '-o', program, '.'], { cwd: SOURCE });
  } catch (error) {
    return { why: `cannot build test/interop/tlog with golang.org/x/mod: ${(error as Error).message.split('\n')[0]}` };
  }
  return { program };
}

export async function askGo(program: string, request: GoRequest): Promise<GoAnswer> {
  return JSON.parse(await run(program, [], { input: JSON.stringify(request) })) as GoAnswer;
}
