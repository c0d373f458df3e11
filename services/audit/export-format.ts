/**
 * The export file: NDJSON, one event per line, in position order:
 * `{position, stream, revision, id, type, data, metadata, stream_hash, chain_hash, previous_stream_hash,
 * previous_chain_hash}`, hashes in lower-case hex. `data` and `metadata` are the stored JSON, parsed; the stored
 * texts were written by `JSON.stringify`, whose output it reproduces exactly, so the hashes can be recomputed from
 * the file. The `previous_*` links let a file exported from a position onwards be checked on its own.
 */
import type { AnchoredRecord, AuditRecord, ClaimedLinks } from './audit-record.ts';
import { toHex } from './audit-record.ts';
import { AuditError } from './audit-sources.ts';

export class ExportFormatError extends Error {
  constructor(line: number, reason: string) {
    super(`export file line ${line}: ${reason}`);
    this.name = 'ExportFormatError';
  }
}

export function exportLine(record: AuditRecord, links: ClaimedLinks): string {
  return JSON.stringify({
    position: record.position,
    stream: record.stream,
    revision: record.revision,
    id: record.id,
    type: record.type,
    data: storedJson(record, 'data'),
    metadata: storedJson(record, 'metadata'),
    stream_hash: toHex(record.stream_hash),
    chain_hash: toHex(record.chain_hash),
    previous_stream_hash: toHex(links.previous_stream_hash),
    previous_chain_hash: toHex(links.previous_chain_hash),
  });
}

/**
 * An event's stored JSON text, parsed. A text that is not JSON (a damaged record; `watchcat history` lists it) has no
 * place in a line of parsed JSON: the export stops there, naming the event, rather than fail with no event named.
 */
function storedJson(record: AuditRecord, part: 'data' | 'metadata'): unknown {
  try {
    return JSON.parse(record[part]) as unknown;
  } catch {
    throw new AuditError(`cannot export ${record.type} at position ${record.position} (${record.stream} revision ${record.revision}): `
      + `its stored ${part} is not JSON, which a line of the export cannot hold; watchcat history lists it`);
  }
}

const HEX_HASH = /^[0-9a-f]{64}$/;

function field<T>(line: number, value: Record<string, unknown>, key: string, check: (v: unknown) => v is T, what: string): T {
  const found = value[key];
  if (!check(found)) throw new ExportFormatError(line, `"${key}" should be ${what}`);
  return found;
}

const isInteger = (v: unknown): v is number => Number.isSafeInteger(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isHash = (v: unknown): v is string => typeof v === 'string' && HEX_HASH.test(v);
const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses one line (`line` is its 1-based number, for messages). */
export function parseExportLine(text: string, line: number): AnchoredRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ExportFormatError(line, 'not JSON');
  }
  if (!isObject(value)) throw new ExportFormatError(line, 'not a JSON object');
  const v = value as Record<string, unknown>;
  const hash = (key: string) => Buffer.from(field(line, v, key, isHash, 'a SHA-256 hash in hex'), 'hex');
  const record = {
    position: field(line, v, 'position', isInteger, 'an integer'),
    stream: field(line, v, 'stream', isString, 'a string'),
    revision: field(line, v, 'revision', isInteger, 'an integer'),
    id: field(line, v, 'id', isString, 'a string'),
    type: field(line, v, 'type', isString, 'a string'),
    data: JSON.stringify(field(line, v, 'data', isObject, 'an object')),
    metadata: JSON.stringify(field(line, v, 'metadata', isObject, 'an object')),
    stream_hash: hash('stream_hash'),
    chain_hash: hash('chain_hash'),
    previous_stream_hash: hash('previous_stream_hash'),
    previous_chain_hash: hash('previous_chain_hash'),
  };
  // The export's own form, byte for byte: JSON.parse keeps the last of a key given twice and drops unknown keys, so a
  // line holding another `data` before the one hashed would verify while a reader keeping the first saw another event.
  if (exportLine(record, record) !== text) {
    throw new ExportFormatError(line, 'not in the form an export writes (a key repeated, added or reordered, or spacing changed)');
  }
  return record;
}
