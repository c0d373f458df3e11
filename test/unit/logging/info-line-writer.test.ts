/**
 * Issue 42, item 8: the request log writes its line without pino's general serializer (shared/logging/logger.ts,
 * `infoLineWriter`). These tests prove the line is the one pino itself writes for the same fields, through the same
 * destination, and that the logger's level still decides.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { pino } from 'pino';
import { createLogger, infoLineWriter } from '../../../shared/logging/logger.ts';

const FIELDS = { method: 'GET', path: '/api/public/catalogue/"quoted"\\path\u00e9\n', status: 200, ms: 0.25, request_id: 'edge-42.a' };
/** The fields as JSON members, written here by hand rather than by the module. */
const SERIALIZED = '"method":"GET","path":"/api/public/catalogue/\\"quoted\\"\\\\path\u00e9\\n","status":200,"ms":0.25,"request_id":"edge-42.a"';

function loggedLines(level: string, write: (logger: ReturnType<typeof createLogger>) => void): Record<string, unknown>[] {
  const file = join(mkdtempSync(join(tmpdir(), 'info-line-')), 'log.ndjson');
  const logger = createLogger(level, 'info-line-test', file);
  write(logger);
  logger.flush();
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('infoLineWriter: the request log line without pino\'s serializer', () => {
  it('writes, for a logger of createLogger, the line pino writes for the same fields: same keys in the same order, same values but the time', () => {
    const before = Date.now();
    const [ours, pinos] = loggedLines('info', (logger) => {
      // Written without pino's info, the slow path the writer exists to avoid.
      const info = logger.info;
      logger.info = () => expect.fail('infoLineWriter went through pino\'s info');
      infoLineWriter(logger, 'request')(SERIALIZED);
      logger.info = info;
      logger.info(FIELDS, 'request');
    });
    const after = Date.now();
    expect(Object.keys(ours!)).to.deep.equal(Object.keys(pinos!));
    expect(Object.keys(ours!)).to.deep.equal(['level', 'time', 'pid', 'hostname', 'name', 'method', 'path', 'status', 'ms', 'request_id', 'msg']);
    expect({ ...ours, time: 0 }).to.deep.equal({ ...pinos, time: 0 });
    expect(ours).to.include({ level: 30, pid: process.pid, name: 'info-line-test', msg: 'request', ...FIELDS });
    expect(ours!['time']).to.be.within(before, after);
  });

  it('gives each line the time it was written, also when lines share the head of one millisecond', () => {
    const stamps: Array<[number, number]> = [];
    const lines = loggedLines('info', (logger) => {
      const write = infoLineWriter(logger, 'request');
      for (let i = 0; i < 6; i += 1) {
        const before = Date.now();
        write(SERIALIZED);
        write(SERIALIZED);
        stamps.push([before, Date.now()], [before, Date.now()]);
        const until = Date.now() + 3;
        while (Date.now() < until) { /* a few milliseconds pass between pairs */ }
      }
    });
    expect(lines).to.have.length(12);
    lines.forEach((line, i) => expect(line['time']).to.be.within(stamps[i]![0], stamps[i]![1]));
    expect(new Set(lines.map((line) => line['time'])).size).to.be.at.least(6);
  });

  it('writes nothing under a level above info, and writes at debug', () => {
    expect(loggedLines('warn', (logger) => infoLineWriter(logger, 'request')(SERIALIZED))).to.deep.equal([]);
    expect(loggedLines('debug', (logger) => infoLineWriter(logger, 'request')(SERIALIZED))).to.have.length(1);
  });

  it('follows a level changed after the writer was made', () => {
    const lines = loggedLines('info', (logger) => {
      const dropped = infoLineWriter(logger, 'dropped');
      const kept = infoLineWriter(logger, 'kept');
      logger.level = 'error';
      dropped(SERIALIZED);
      logger.level = 'info';
      kept(SERIALIZED);
    });
    expect(lines.map((line) => line['msg'])).to.deep.equal(['kept']);
  });

  it('hands the fields to the info of any other logger (a pino on a stream, a child), which formats them its own way', () => {
    const chunks: string[] = [];
    const root = pino({ level: 'info', base: { service: 'x' } }, new Writable({ write(chunk, _encoding, done) { chunks.push(String(chunk)); done(); } }));
    infoLineWriter(root, 'request')(SERIALIZED);
    infoLineWriter(root.child({ part: 'api' }), 'request')(SERIALIZED);
    const lines = chunks.join('').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).to.have.length(2);
    expect(lines[0]).to.include({ service: 'x', msg: 'request', ...FIELDS });
    expect(lines[1]).to.include({ service: 'x', part: 'api', msg: 'request', ...FIELDS });
  });

  it('makes nothing of the fields for another logger whose level drops info lines: they are not even parsed', () => {
    const chunks: string[] = [];
    const quiet = pino({ level: 'warn' }, new Writable({ write(chunk, _encoding, done) { chunks.push(String(chunk)); done(); } }));
    expect(() => infoLineWriter(quiet, 'request')('"not": JSON at all')).not.to.throw();
    expect(chunks).to.deep.equal([]);
  });
});
