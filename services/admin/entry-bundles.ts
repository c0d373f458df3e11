/**
 * The transparency log's entry bundles (C2SP tlog-tiles) for auditors: `GET /admin/transparency/tile/entries/<N>[.p/<W>]`
 * with the `audit` scope, never public (docs/api.md: the serial registry must not be enumerable). A bundle holds the
 * entries of leaves 256N to 256N + W - 1, each as a big-endian uint16 length and its bytes. The leaves' event
 * positions come from the log's level-0 tile in the read store; the entries from the event store, each checked
 * against its leaf hash: a store that no longer gives a signed entry answers 409 naming the leaf, never other bytes.
 * Bundles of leaves the log does not hold yet are 404.
 */
import type { Middleware } from 'koa';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import type { TileDoc } from '../../shared/read-models/documents.ts';
import { entryText, MAX_ENTRY_BYTES, readEntryTexts } from '../../shared/transparency/log-entry.ts';
import { leafHash } from '../../shared/transparency/merkle.ts';
import { edgeId, leafPositions, tileHashes, tileId } from '../../shared/transparency/tile-docs.ts';
import { parseTilePath } from '../../shared/transparency/tiles.ts';
import { HttpError } from './json-body.ts';

const PATH = /^\/admin\/transparency\/(tile\/entries\/.+)$/;

export interface EntryBundleSources {
  eventStore: EventStore;
  readStore: ReadStore;
}

/** The bundle's bytes, or undefined when the log does not hold those leaves yet. */
export async function entryBundle({ eventStore, readStore }: EntryBundleSources, index: number, width: number): Promise<Buffer | undefined> {
  const [doc] = (await readStore.getMany<TileDoc>('tlog', [tileId(0, index), edgeId(0)])).filter((found) => found.index === index);
  if (!doc || doc.width < width || !doc.positions) return undefined;
  const positions = leafPositions(doc).slice(0, width);
  const hashes = tileHashes(doc);
  // Positions only grow and are whole numbers: nothing lies between the one before the first and the first.
  const texts = await readEntryTexts(eventStore, positions[0]! - 1, width);
  const parts: Buffer[] = [];
  for (const [i, position] of positions.entries()) {
    const text = texts[i];
    const leaf = index * 256 + i;
    const entry = text && text.position === position ? Buffer.from(entryText(text), 'utf8') : undefined;
    if (!entry || !Buffer.from(leafHash(entry)).equals(Buffer.from(hashes[i]!))) {
      throw new HttpError(409, `the event store no longer gives the entry of leaf ${leaf} (position ${position}) that the log holds`);
    }
    if (entry.length > MAX_ENTRY_BYTES) throw new HttpError(409, `the entry of leaf ${leaf} is longer than an entry bundle can hold (65,535 bytes)`);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(entry.length);
    parts.push(length, entry);
  }
  return Buffer.concat(parts);
}

/** The route, behind `audit` (a middleware checking the scope). */
export function entryBundleRoute(sources: EntryBundleSources, audit: Middleware): Middleware {
  return async (ctx, next) => {
    const path = PATH.exec(ctx.path)?.[1];
    if (path === undefined || ctx.method !== 'GET') return next();
    return audit(ctx, async () => {
      const tile = parseTilePath(path.replace('tile/entries/', 'tile/0/'));
      const bundle = tile && (await entryBundle(sources, tile.index, tile.width));
      if (!bundle) throw new HttpError(404, 'no such entry bundle in the log');
      ctx.set('Cache-Control', 'private, no-store');
      ctx.type = 'application/octet-stream';
      ctx.body = bundle;
    });
  };
}
