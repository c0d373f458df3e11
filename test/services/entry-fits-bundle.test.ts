/**
 * Every accepted event can be served by the transparency log (issue 42, item 5): a watch's specifications are
 * bounded in keys (20 a language, names of 1 to 40 letters) as well as values (500 characters), and every event is
 * measured against an entry bundle's bound (65,535 bytes, the uint16 length C2SP tlog-tiles writes before an entry)
 * when appended. The finding replayed: 120 keys of 500 characters were accepted, then their bundle answered 409.
 */
import { expect } from 'chai';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { decodeStoredEvent } from '../../shared/events/codec.ts';
import type { WatchPublished } from '../../shared/events/index.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { entryText, readEntryTexts } from '../../shared/read-model/transparency/log-entry.ts';
import { createAdminApp } from '../../services/admin/admin-app.ts';
import { createCommandService, type CommandService } from '../../services/write/command-service.ts';
import { aCollection, aWatch } from '../unit/services/support/builders.ts';

const CAT = 'cat-key-1-4f9e2d7c1b8a6053e7d9c2b1a0';
/** An entry bundle's bound: each entry's length is a big-endian uint16. */
const BUNDLE_ENTRY_BYTES = 2 ** 16 - 1;

/** `count` specification keys of `keyLength` letters, each with `value`. */
function specs(count: number, keyLength: number, value: string): Record<string, string> {
  const letters = (i: number) => Array.from({ length: keyLength }, (_, j) => String.fromCharCode(97 + ((i * 7 + j) % 26))).join('');
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`${i.toString(26).replace(/\d/g, (d) => 'qrstuvwxyz'[Number(d)]!)}_${letters(i)}`.slice(0, keyLength), value]));
}

describe('every accepted event fits an entry bundle (issue 42, item 5)', () => {
  let store: EventStore;
  let service: CommandService;
  let server: Server;
  let base: string;

  beforeEach(async () => {
    store = openSqliteEventStore(':memory:');
    service = createCommandService(store);
    await service.defineCollection(aCollection());
    server = createAdminApp(service, { ADMIN_API_KEYS: `${CAT}:catalogue`, ADMIN_AUTH_FAILURES_PER_MINUTE: 100 }, createLogger('silent', 'test')).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
    await store.close();
  });

  const publish = (watch: WatchPublished) => service.publishWatch(watch);
  const entryBytes = async () => {
    const texts = await readEntryTexts(store, 0, 100);
    return Math.max(...texts.map((text) => Buffer.byteLength(entryText(text), 'utf8')));
  };

  it('accepts the largest specifications of plain text (20 keys of 40 letters, 500 characters each, both languages) and its entry fits a bundle', async () => {
    const full = specs(20, 40, 'x'.repeat(500));
    expect(Object.keys(full)).to.have.length(20);
    expect(Object.keys(full).every((key) => /^[a-z_]{40}$/.test(key))).to.equal(true);
    await publish(aWatch({ specifications: { en: full, fr: full } }));
    expect(await entryBytes()).to.be.within(2 * 20 * (40 + 500), BUNDLE_ENTRY_BYTES);
  });

  it('refuses a 21st specification key, a key of 41 letters, and the finding (120 keys of 500 characters) with a 422 at the field, appending nothing', async () => {
    const head = await store.headPosition();
    const post = async (specifications: Record<string, string>) => {
      const { price_cents: _, ...watch } = aWatch({ specifications: { en: specifications, fr: { movement: 'Automatique' } } });
      const answer = await fetch(`${base}/admin/watches`, {
        method: 'POST', headers: { authorization: `Bearer ${CAT}`, 'content-type': 'application/json' }, body: JSON.stringify({ ...watch, price_eur: 100 }),
      });
      return { status: answer.status, detail: ((await answer.json()) as { detail: { type: string; loc: unknown[]; msg: string; ctx?: object }[] }).detail };
    };
    const oneMore = await post(specs(21, 10, 'steel'));
    expect(oneMore.status).to.equal(422);
    expect(oneMore.detail).to.deep.equal([{
      type: 'too_long', loc: ['body', 'specifications', 'en'], msg: 'Dictionary should have at most 20 items after validation, not 21', input: specs(21, 10, 'steel'),
      ctx: { field_type: 'Dictionary', max_length: 20, actual_length: 21 },
    }]);
    const longKey = 'a'.repeat(41);
    const tooLong = await post({ [longKey]: 'steel' });
    expect(tooLong.detail).to.deep.equal([{
      type: 'string_pattern_mismatch', loc: ['body', 'specifications', 'en', longKey, '[key]'], msg: "String should match pattern '^[a-z_]{1,40}$'",
      input: longKey, ctx: { pattern: '^[a-z_]{1,40}$' },
    }]);
    // Too large for the 16 KiB of a watch's own route: the finding came through an import.
    const finding = await fetch(`${base}/admin/import`, {
      method: 'POST', headers: { authorization: `Bearer ${CAT}`, 'content-type': 'application/json' },
      body: JSON.stringify({ collections: [aCollection()], watches: [aWatch({ specifications: { en: specs(120, 20, 'x'.repeat(500)), fr: {} } })], configurators: [], serials: [] }),
    });
    expect(finding.status).to.equal(422);
    const { detail } = (await finding.json()) as { detail: { type: string; loc: unknown[] }[] };
    expect(detail.map((found) => [found.type, found.loc])).to.deep.equal([['too_long', ['body', 'watches', 0, 'specifications', 'en']]]);
    expect(await store.headPosition()).to.equal(head);
  });

  it('refuses, as a command error naming the bound, an event whose entry would not fit a bundle though each field is within its own bounds', async () => {
    // 500 control characters are 3,000 bytes once written (`\u0001` each): 20 of them a language is 120,000 bytes.
    const escaped = specs(20, 10, '\u0001'.repeat(500));
    const head = await store.headPosition();
    let refusal: Error | undefined;
    await publish(aWatch({ specifications: { en: escaped, fr: escaped } })).catch((error: Error) => { refusal = error; });
    expect(refusal?.message).to.match(/^refused: the event takes \d+ bytes in the transparency log, more than an entry holds \(65535\)$/);
    expect(await store.headPosition()).to.equal(head);
  });

  it('still reads a watch an older version wrote with more keys than a writer may now give', () => {
    const { price_cents, ...rest } = aWatch({ specifications: { en: specs(120, 20, 'steel'), fr: { movement: 'Automatique' } } });
    const metadata = { correlation_id: 'c', causation_id: 'c', actor: 'test', occurred_at: '2026-01-01T00:00:00.000Z', schema_version: 1 };
    const decoded = decodeStoredEvent('WatchPublished', { ...rest, price_cents }, metadata);
    expect(decoded).not.to.have.property('problem');
    expect(Object.keys((decoded as { data: WatchPublished }).data.specifications.en)).to.have.length(120);
  });
});
