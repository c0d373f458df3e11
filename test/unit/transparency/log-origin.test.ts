/**
 * Issue 44, item 4: the log's origin is `<host of PUBLIC_BASE_URL>/watchcat/events` (docs/api.md, "Transparency
 * log"), and a process that signs under an origin naming no public address says so at start, in one warning line.
 */
import { expect } from 'chai';
import { pino } from 'pino';
import { transparencyLogOrigin } from '../../../read-api/transparency/log-origin.ts';

interface Line { level: number; msg: string; origin?: string }

function originOf(publicBaseUrl: string | undefined): { origin: string; lines: Line[] } {
  const lines: Line[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line) as Line); } });
  return { origin: transparencyLogOrigin(publicBaseUrl === undefined ? {} : { PUBLIC_BASE_URL: publicBaseUrl }, logger), lines };
}

describe('the transparency log\'s origin, from PUBLIC_BASE_URL', () => {
  it('is the host of PUBLIC_BASE_URL (its port included, its path and scheme left out) followed by /watchcat/events, with no warning', () => {
    for (const [base, origin] of [
      ['https://watches.example', 'watches.example/watchcat/events'],
      ['https://Watches.Example/shop/', 'watches.example/watchcat/events'],
      ['http://api.watches.example:8443/v1', 'api.watches.example:8443/watchcat/events'],
    ] as const) {
      const { origin: taken, lines } = originOf(base);
      expect(taken, base).to.equal(origin);
      expect(lines, base).to.deep.equal([]);
    }
  });

  it('is localhost/watchcat/events without PUBLIC_BASE_URL, and one warning line names it and tells to set PUBLIC_BASE_URL', () => {
    const { origin, lines } = originOf(undefined);
    expect(origin).to.equal('localhost/watchcat/events');
    expect(lines).to.have.length(1);
    expect(lines[0]!.level, 'a warning').to.equal(40);
    expect(lines[0]!.origin).to.equal('localhost/watchcat/events');
    expect(lines[0]!.msg).to.include('localhost/watchcat/events').and.include('set PUBLIC_BASE_URL').and.not.include('\n');
  });

  it('warns as well for a PUBLIC_BASE_URL on localhost or a loopback address, which no monitor elsewhere reaches', () => {
    for (const base of ['http://localhost:8080', 'http://shop.localhost', 'http://127.0.0.1:3000', 'http://127.10.200.3', 'http://[::1]:3000']) {
      const { lines } = originOf(base);
      expect(lines.map((line) => line.level), base).to.deep.equal([40]);
    }
  });

  it('does not warn for public names that only look local: localhost or a loopback address as a subdomain, 127 as a port', () => {
    for (const base of ['https://localhost.watches.example', 'https://127.0.0.1.watches.example', 'https://watches.example:127']) {
      expect(originOf(base).lines, base).to.deep.equal([]);
    }
  });
});
