/**
 * Issue 42, item 8: the logs are written in batches (shared/logging/buffered-destination.ts), and still no line is
 * lost when the process ends on its own terms: a child logs many lines in one go (all still in the destination's
 * buffer when it says READY), then stops on SIGTERM, or dies of an uncaught error; every line is read back from its
 * stderr. pino's asynchronous destination (`sync: false`) lost lines 1 to 155 of 20,000 at the SIGTERM.
 */
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { spawnTs } from '../support/child-process.ts';

const CHILD = fileURLToPath(new URL('../support/stop-children/log-lines.ts', import.meta.url));
const LINES = 20_000;

/** The indexes of the `line` records among a child's output lines, in order. */
const indexes = (lines: string[]) => lines.flatMap((line) => {
  if (!line.startsWith('{')) return [];
  const record = JSON.parse(line) as { msg?: string; index?: number };
  return record.msg === 'line' ? [record.index] : [];
});

describe('buffered logs at the end of a process', function () {
  this.timeout(60_000);

  it(`a graceful stop (SIGTERM) right after ${LINES} lines: all of them are written, in order, and the stop is logged`, async () => {
    const child = spawnTs(CHILD, [String(LINES), 'stop']);
    await child.started;
    child.child.kill('SIGTERM');
    expect(await child.exited).to.equal(0);
    expect(indexes(child.lines)).to.deep.equal(Array.from({ length: LINES }, (_, index) => index));
    expect(child.lines.at(-1)).to.include('log-lines stopped');
  });

  it(`an uncaught error right after ${LINES} lines: all of them are written before the process dies`, async () => {
    const child = spawnTs(CHILD, [String(LINES), 'throw']);
    expect(await child.exited).to.equal(1);
    expect(indexes(child.lines)).to.deep.equal(Array.from({ length: LINES }, (_, index) => index));
  });
});
