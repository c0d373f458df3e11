/**
 * The transparency log for auditors at one base URL, as C2SP tlog-tiles lays a log out: under `/admin/transparency`
 * (the `audit` scope), the latest signed checkpoint (`checkpoint`), the hash tiles (`tile/<L>/<N>[.p/<W>]`) and the
 * entry bundles (`tile/entries/<N>[.p/<W>]`), never public (docs/api.md: the serial registry must not be enumerable).
 * A bundle holds the entries of leaves 256N to 256N + W - 1, each as a big-endian uint16 length and its bytes. The
 * leaves' event positions come from the log's level-0 tile in the read store; the entries from the event store, each
 * checked against its leaf hash: a store that no longer gives a signed entry answers 409 naming the leaf, never other
 * bytes. Tiles and bundles of leaves beyond the latest signed checkpoint are 404, as on the public port.
 */
import type { Middleware } from 'koa';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import type { TileDoc } from '../../shared/read-model/documents/documents.ts';
import { entryText, MAX_ENTRY_BYTES, readEntryTexts } from '../../shared/read-model/transparency/log-entry.ts';
import { leafHash } from '../../shared/read-model/transparency/merkle.ts';
import { edgeId, leafPositions, tileHashes, tileId } from '../../shared/read-model/transparency/tile-docs.ts';
import { signedCheckpointOf } from '../../shared/read-model/transparency/signed-checkpoints.ts';
import { TileLog } from '../../shared/read-model/transparency/tile-log.ts';
import { parseTilePath } from '../../shared/read-model/transparency/tiles.ts';
import { HttpError } from './json-body.ts';

const PATH = /^\/admin\/transparency\/(checkpoint|tile\/.+)$/;
const ENTRIES = 'tile/entries/';

export interface EntryBundleSources {
  eventStore: EventStore;
  readStore: ReadStore;
}

/** The bundle's bytes, or undefined when the log does not hold those leaves yet. */
async function entryBundle({ eventStore, readStore }: EntryBundleSources, index: number, width: number): Promise<Buffer | undefined> {
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

/** The latest signed checkpoint's note and a hash tile of its tree, from one snapshot; undefined where there is none. */
async function logFile(readStore: ReadStore, path: string): Promise<{ type: string; body: Buffer } | undefined> {
  const snapshot = await readStore.snapshot();
  const signed = signedCheckpointOf(snapshot.control);
  if (!signed) return undefined;
  if (path === 'checkpoint') return { type: 'text/plain; charset=utf-8', body: Buffer.from(signed.note, 'utf8') };
  const tile = parseTilePath(path);
  const data = tile && (await (await TileLog.read(snapshot)).tile(tile, signed.size));
  return data ? { type: 'application/octet-stream', body: Buffer.from(data) } : undefined;
}

/** The routes, behind `audit` (a middleware checking the scope). */
export function entryBundleRoute(sources: EntryBundleSources, audit: Middleware): Middleware {
  return async (ctx, next) => {
    const path = PATH.exec(ctx.path)?.[1];
    if (path === undefined || ctx.method !== 'GET') return next();
    return audit(ctx, async () => {
      let answer: { type: string; body: Buffer } | undefined;
      if (path.startsWith(ENTRIES)) {
        const tile = parseTilePath(path.replace(ENTRIES, 'tile/0/'));
        const signed = signedCheckpointOf(await sources.readStore.readControl());
        const covered = tile !== undefined && signed !== undefined && tile.index * 256 + tile.width <= signed.size;
        const bundle = covered ? await entryBundle(sources, tile.index, tile.width) : undefined;
        answer = bundle && { type: 'application/octet-stream', body: bundle };
      } else {
        answer = await logFile(sources.readStore, path);
      }
      if (!answer) throw new HttpError(404, 'no such file in the log');
      ctx.set('Cache-Control', 'private, no-store');
      ctx.type = answer.type;
      ctx.body = answer.body;
    });
  };
}
