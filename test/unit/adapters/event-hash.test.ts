/**
 * The audit hashes follow the byte layout documented in event-hash.ts, recomputed here the plain way (a streaming
 * SHA-256 over each length-prefixed field), so a faster implementation cannot drift from what auditors recompute.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { chainHash, GENESIS_HASH, streamHash } from '../../../shared/adapters/sqlite/event-hash.ts';

function field(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

function documentedStreamHash(type: string, data: string, metadata: string, previous: Buffer): Buffer {
  return createHash('sha256').update(field(type)).update(field(data)).update(field(metadata)).update(previous).digest();
}

/** Computed with the streaming implementation the store used before the one-shot digests. */
const PINNED_FIRST_CHAIN_HASH = '8c01ef1f527b638d3eaee639f216a552e2a013d8469282aa327d6fe51921c271';

describe('audit hash layout', function () {
  const texts = ['', 'SerialRegistered', '{"name":{"en":"Lumière","fr":"Genève ✓ 時計 😀"}}', `"${'é'.repeat(40_000)}"`];
  const previous = createHash('sha256').update('an earlier event').digest();

  it('stream_hash is SHA-256 over the length-prefixed UTF-8 type, data and metadata, then the previous stream hash', function () {
    for (const type of texts) {
      for (const data of texts) {
        for (const metadata of texts) {
          for (const before of [GENESIS_HASH, previous]) {
            expect(streamHash(type, data, metadata, before).equals(documentedStreamHash(type, data, metadata, before))).to.equal(true);
          }
        }
      }
    }
  });

  it('chain_hash is SHA-256 over the own stream hash, then the previous chain hash', function () {
    const own = documentedStreamHash('SerialRegistered', '{}', '{}', GENESIS_HASH);
    for (const before of [GENESIS_HASH, previous]) {
      expect(chainHash(own, before).equals(createHash('sha256').update(own).update(before).digest())).to.equal(true);
    }
  });

  it('of the first event of an empty store is a fixed value', function () {
    // Pinned once, so a change of layout shows even if this file's reference implementation were changed with it.
    const own = streamHash('SerialRegistered', '{"serial":"AUR-0001"}', '{"schema_version":1}', GENESIS_HASH);
    expect(chainHash(own, GENESIS_HASH).toString('hex')).to.equal(PINNED_FIRST_CHAIN_HASH);
  });
});
