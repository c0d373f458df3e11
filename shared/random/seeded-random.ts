/**
 * mulberry32: a tiny, well-spread 32-bit generator. Deterministic data (the demo serials) and replayable test runs
 * (crash points, fuzz) draw from it; never use it for anything secret.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A whole number in [min, max] drawn from `random`. */
export const between = (random: () => number, min: number, max: number): number => min + Math.floor(random() * (max - min + 1));
