/**
 * Go's golang.org/x/mod/sumdb/tlog and note, through the small program in test/interop/tlog: an implementation of
 * the transparency log this project did not write. Modules come through the Go module proxy (or Go's module cache).
 */
import { fileURLToPath } from 'node:url';
import { askGoProgram, buildGoProgram } from './go-program.ts';

const SOURCE = fileURLToPath(new URL('../interop/tlog', import.meta.url));

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

/** Builds the program once per test process; resolves to why it cannot be had instead when Go or its modules are missing. */
export function buildGoTlog(): Promise<{ program: string } | { why: string }> {
  return buildGoProgram(SOURCE, 'golang.org/x/mod');
}

export function askGo(program: string, request: GoRequest): Promise<GoAnswer> {
  return askGoProgram<GoAnswer>(program, request);
}
