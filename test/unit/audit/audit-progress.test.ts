/**
 * Progress lines of the audit commands: counted in events where the events to come are known, and labelled as
 * positions where only the span of positions is (EventStoreDB positions are log offsets, not event counts). On a
 * clock the test sets, a plain line comes every 2 s with the rate and the ETA worked out by hand; on a terminal, a bar.
 */
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { rebuildProgress, startProgress } from '../../../services/audit/audit-progress.ts';

function capture() {
  const lines: string[] = [];
  return { lines, output: { terminal: undefined, line: (text: string) => lines.push(text) } };
}

/** Runs `body` with `Date.now()` reading `clock.now`, which the body moves; the real clock is back afterwards. */
function withClock(body: (clock: { now: number }) => void): void {
  const real = Date.now;
  const clock = { now: 1_764_000_000_000 };
  Date.now = () => clock.now;
  try {
    body(clock);
  } finally {
    Date.now = real;
  }
}

describe('audit progress lines', () => {
  it('count events against a known number of events', () => {
    const { lines, output } = capture();
    const progress = startProgress('verify', { events: 10 }, output);
    progress.update(3, 3);
    progress.stop();
    expect(lines).to.have.length(1);
    expect(lines[0]).to.match(/^verify: 3\/10 events, \d+ events\/s, ETA \d+ s$/);
  });

  it('on a span of positions, say where they stand in positions and count the events apart', () => {
    const { lines, output } = capture();
    const progress = startProgress('export', { from: 1_000, head: 901_000 }, output);
    progress.update(3, 451_000);
    progress.stop();
    expect(lines).to.have.length(1);
    expect(lines[0]).to.match(/^export: position 451000 of 901000, 3 events, \d+ events\/s, ETA \d+ s$/);
    expect(lines[0]).not.to.match(/\/901000 events/);
  });

  it('draws a rebuild against its positions with the events it projected', () => {
    const { lines, output } = capture();
    const progress = rebuildProgress('shadow rebuild', output);
    progress.onProgress({ position: 7_310, head: 14_620, events: 10, eventsPerSecond: 1 });
    progress.stop();
    expect(lines[0]).to.match(/^shadow rebuild: position 7310 of 14620, 10 events, \d+ events\/s, ETA \d+ s$/);
  });

  it('writes a line 2 s after the last one, not sooner, with the events per second and the ETA at that pace', () => {
    withClock((clock) => {
      const { lines, output } = capture();
      const progress = startProgress('verify', { events: 10 }, output);
      clock.now += 1_999;
      progress.update(2, 2);
      expect(lines, 'before 2 s').to.deep.equal([]);
      clock.now += 1;
      progress.update(4, 4);
      // 4 events in 2 s: 2 events/s; the 6 left take 3 s at that pace.
      expect(lines).to.deep.equal(['verify: 4/10 events, 2 events/s, ETA 3 s']);
      clock.now += 1_999;
      progress.update(7, 7);
      clock.now += 1;
      progress.update(8, 8);
      // 8 events in 4 s: 2 events/s, 1 s for the 2 left.
      expect(lines.slice(1)).to.deep.equal(['verify: 8/10 events, 2 events/s, ETA 1 s']);
      clock.now += 500;
      progress.update(10, 10);
      progress.stop();
      // The last line, at stop: 10 events in 4.5 s round to 2 events/s; nothing left.
      expect(lines.slice(2)).to.deep.equal(['verify: 10/10 events, 2 events/s, ETA 0 s']);
    });
  });

  it('on a span of positions, measures the pace and the ETA on the positions covered since the first', () => {
    withClock((clock) => {
      const { lines, output } = capture();
      const progress = startProgress('export', { from: 1_000, head: 5_000 }, output);
      clock.now += 2_000;
      progress.update(10, 2_000);
      // 1,000 of the 4,000 positions in 2 s: 500 a second, 6 s for the 3,000 left; 10 events in 2 s: 5 a second.
      expect(lines).to.deep.equal(['export: position 2000 of 5000, 10 events, 5 events/s, ETA 6 s']);
    });
  });

  it('guesses no ETA while nothing is covered yet (0 s, not an endless one)', () => {
    withClock((clock) => {
      const { lines, output } = capture();
      const progress = startProgress('export', { from: 1_000, head: 5_000 }, output);
      clock.now += 2_000;
      progress.update(0, 1_000);
      expect(lines).to.deep.equal(['export: position 1000 of 5000, 0 events, 0 events/s, ETA 0 s']);
    });
  });

  it('stopped before the first event, says that none of them was handled', () => {
    withClock(() => {
      const { lines, output } = capture();
      startProgress('verify', { events: 10 }, output).stop();
      expect(lines).to.deep.equal(['verify: 0/10 events, 0 events/s, ETA 0 s']);
    });
  });

  it('writes no line for an empty history, counted in events or in positions', () => {
    const { lines, output } = capture();
    startProgress('verify', { events: 0 }, output).stop();
    startProgress('export', { from: 12, head: 12 }, output).stop();
    expect(lines).to.deep.equal([]);
  });
});

/** A terminal that keeps what is written to it; the bar's frames are the writes that start with the label. */
function terminal() {
  const writes: string[] = [];
  const stream = Object.assign(new Writable({ write(chunk: Buffer, _encoding, done) { writes.push(String(chunk)); done(); } }), { isTTY: true, columns: 200 });
  return { writes, stream: stream as unknown as NodeJS.WriteStream };
}

const noLines = (text: string) => { throw new Error(`a line on a terminal: ${text}`); };

describe('audit progress bar on a terminal', () => {
  it('counted in events: the label, the share done and the events of the total, then a new line when stopped', () => {
    withClock((clock) => {
      const { writes, stream } = terminal();
      const progress = startProgress('verify', { events: 10 }, { terminal: stream, line: noLines });
      clock.now += 2_000;
      progress.update(10, 12);
      progress.stop();
      const frames = writes.filter((text) => text.startsWith('verify '));
      expect(frames[0]).to.match(/^verify \[░{40}\] 0% \| 0\/10 events \| 0 events\/s \| ETA /);
      // 10 events in 2 s.
      expect(frames.at(-1)).to.match(/^verify \[█{40}\] 100% \| 10\/10 events \| 5 events\/s \| ETA /);
      expect(frames.join('')).not.to.contain('{');
      expect(writes.at(-1)).to.equal('\n');
    });
  });

  it('on a span of positions: the share of positions covered, the position reached and the events counted apart', () => {
    withClock((clock) => {
      const { writes, stream } = terminal();
      const progress = startProgress('export', { from: 1_000, head: 5_000 }, { terminal: stream, line: noLines });
      clock.now += 2_000;
      progress.update(10, 3_000);
      progress.stop();
      const frames = writes.filter((text) => text.startsWith('export '));
      // Before the first event, no position is named.
      expect(frames[0]).to.match(/^export \[░{40}\] 0% \| position {2}\| 0 events \| 0 events\/s \| ETA /);
      // 2,000 of the 4,000 positions.
      expect(frames.at(-1)).to.match(/^export \[█{20}░{20}\] 50% \| position 3000 \| 10 events \| 5 events\/s \| ETA /);
      expect(frames.join('')).not.to.contain('{');
      expect(writes.at(-1)).to.equal('\n');
    });
  });
});
