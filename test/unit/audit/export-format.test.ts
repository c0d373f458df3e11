/**
 * Reading a line of an export file back (services/audit/export-format.ts): the format its module comment describes,
 * which other tools write and read too. A line with a field of the wrong kind is refused, naming the line, the field
 * and the kind expected, before any hash is computed from it; the messages below are written from that format.
 */
import { expect } from 'chai';
import { parseExportLine } from '../../../services/audit/export-format.ts';

const hex = (byte: string) => byte.repeat(32);

/** A line of the format, written out by hand. */
const line = (): Record<string, unknown> => ({
  position: 4, stream: 'watch-RG-1', revision: 1, id: '7d1e4a0c-5b8f-4d2a-9c3e-1f6b2a8d9e07', type: 'WatchPriceChanged',
  data: { reference: 'RG-1', price_cents: 1_250_000 }, metadata: { actor: 'auditor' },
  stream_hash: hex('a1'), chain_hash: hex('b2'), previous_stream_hash: hex('c3'), previous_chain_hash: hex('d4'),
});

const refusal = (text: string, number: number): string => {
  try {
    parseExportLine(text, number);
  } catch (error) {
    return (error as Error).message;
  }
  return 'read';
};

describe('export format: one line read back', () => {
  it('reads every field of a line: data and metadata as their JSON text, the hashes as bytes', () => {
    expect(parseExportLine(JSON.stringify(line()), 1)).to.deep.equal({
      position: 4, stream: 'watch-RG-1', revision: 1, id: '7d1e4a0c-5b8f-4d2a-9c3e-1f6b2a8d9e07', type: 'WatchPriceChanged',
      data: '{"reference":"RG-1","price_cents":1250000}', metadata: '{"actor":"auditor"}',
      stream_hash: Buffer.alloc(32, 0xa1), chain_hash: Buffer.alloc(32, 0xb2),
      previous_stream_hash: Buffer.alloc(32, 0xc3), previous_chain_hash: Buffer.alloc(32, 0xd4),
    });
  });

  it('refuses a field of the wrong kind, naming the line, the field and the kind it should be', () => {
    const cases: [string, unknown, string][] = [
      ['position', '4', 'an integer'],
      ['position', 4.5, 'an integer'],
      ['stream', 5, 'a string'],
      ['revision', null, 'an integer'],
      ['id', 7, 'a string'],
      ['type', ['WatchPriceChanged'], 'a string'],
      ['data', null, 'an object'],
      ['data', 5, 'an object'],
      ['data', [], 'an object'],
      ['metadata', 'actor', 'an object'],
      ['stream_hash', hex('A1'), 'a SHA-256 hash in hex'],
      ['chain_hash', [hex('b2')], 'a SHA-256 hash in hex'],
      ['previous_stream_hash', 'not a hash', 'a SHA-256 hash in hex'],
      ['previous_chain_hash', undefined, 'a SHA-256 hash in hex'],
    ];
    for (const [field, value, kind] of cases) {
      const text = JSON.stringify({ ...line(), [field]: value });
      expect(refusal(text, 7), `${field}: ${JSON.stringify(value)}`).to.equal(`export file line 7: "${field}" should be ${kind}`);
    }
  });

  it('refuses a line of JSON that is not an object', () => {
    for (const text of ['null', '[]', '"text"', '12']) expect(refusal(text, 3), text).to.equal('export file line 3: not a JSON object');
  });
});
