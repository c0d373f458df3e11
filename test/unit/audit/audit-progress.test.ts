/**
 * Progress lines of the audit commands: counted in events where the events to come are known, and labelled as
 * positions where only the span of positions is (EventStoreDB positions are log offsets, not event counts).
 */
import { expect } from 'chai';
import { rebuildProgress, startProgress } from '../../../services/audit/audit-progress.ts';

function capture() {
  const lines: string[] = [];
  return { lines, output: { terminal: undefined, line: (text: string) => lines.push(text) } };
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
});
