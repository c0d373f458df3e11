/**
 * A relative `DATA_DIR` (the default `./data`) names the same folder for every process and every `watchcat`
 * command, wherever it was started from: it is read from the project root (the folder of watchcat's package.json),
 * not from the shell's folder, where a command would silently open a new, empty store beside the one the service
 * uses.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from './config.ts';

/** The folder holding watchcat's package.json, above this file (in the sources or in dist/). */
export function projectRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let folder = from; ; folder = dirname(folder)) {
    const manifest = join(folder, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'watchcat') return folder;
    if (dirname(folder) === folder) return process.cwd();
  }
}

/** The configuration with `DATA_DIR` absolute, a relative one taken from the project root. */
export function withProjectDataDir(config: Config, root: string = projectRoot()): Config {
  return isAbsolute(config.DATA_DIR) ? config : { ...config, DATA_DIR: resolve(root, config.DATA_DIR) };
}
