/**
 * C2SP tlog-tiles hash tiles of height 8: tile (L, N) holds the stored hashes of level 8L, indexes 256N to
 * 256N + 255, concatenated; a partial tile `.p/W` the first W of them. Paths are `tile/<L>/<N>[.p/<W>]`, N written
 * in groups of three digits, every group but the last prefixed with `x` (1234067: `x001/x234/067`).
 */
export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 2 ** TILE_HEIGHT;

export interface Tile {
  level: number;
  index: number;
  /** 1 to 256; 256 is a full tile. */
  width: number;
}

export function tilePath({ level, index, width }: Tile): string {
  const groups: string[] = [];
  let n = index;
  do {
    groups.unshift(String(n % 1000).padStart(3, '0'));
    n = Math.floor(n / 1000);
  } while (n > 0);
  const encoded = groups.map((group, i) => (i < groups.length - 1 ? `x${group}` : group)).join('/');
  return `tile/${level}/${encoded}${width === TILE_WIDTH ? '' : `.p/${width}`}`;
}

const TILE_PATH = /^tile\/(\d{1,2})\/((?:x\d{3}\/)*\d{3})(?:\.p\/(\d{1,3}))?$/;

/** The tile a path names, or undefined when it names none; each tile has one path (no `x000`, no `.p/256`). */
export function parseTilePath(path: string): Tile | undefined {
  const match = TILE_PATH.exec(path);
  if (!match) return undefined;
  const tile = {
    level: Number(match[1]),
    index: Number(match[2]!.replace(/x|\//g, '')),
    width: match[3] === undefined ? TILE_WIDTH : Number(match[3]),
  };
  const valid = Number.isSafeInteger(tile.index) && tile.width >= 1 && tile.width <= TILE_WIDTH && tilePath(tile) === path;
  return valid ? tile : undefined;
}
