/**
 * The transparency log on /metrics (read-api/transparency/log-metrics.ts): the size of the latest signed checkpoint,
 * whether the log is parked, and the trees the signer refused, as Prometheus reads them at each scrape. The refused
 * trees are a counter (issue 41, item 3: the alert an operator wants): it rises by the refusals since the last
 * scrape, so that a rate over it counts each refusal once.
 */
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { transparencyLogMetrics } from '../../../read-api/transparency/log-metrics.ts';
import type { TransparencyLog } from '../../../read-api/transparency/log-publisher.ts';

/** A log whose checkpoint, parking and refusals the test sets. */
function logOf() {
  const state = { size: undefined as number | undefined, parked: undefined as string | undefined, refusals: 0 };
  const log = {
    checkpoint: () => (state.size === undefined ? undefined : { size: state.size, root: Buffer.alloc(32), note: '' }),
    parked: () => state.parked,
    refusals: () => state.refusals,
  } as Pick<TransparencyLog, 'checkpoint' | 'parked' | 'refusals'> as TransparencyLog;
  return { state, log };
}

/** The value of each sample, by name, in one scrape. */
async function scrape(registry: Registry): Promise<Record<string, string>> {
  const text = await registry.metrics();
  return Object.fromEntries(text.split('\n').filter((line) => line !== '' && !line.startsWith('#')).map((line) => line.split(' ') as [string, string]));
}

describe('the transparency log on /metrics', () => {
  it('reads the checkpoint\'s size (0 before the first) and 1 while the log is parked, at each scrape', async () => {
    const registry = new Registry();
    const { state, log } = logOf();
    transparencyLogMetrics(registry, log);
    expect(await scrape(registry)).to.include({ transparency_log_size: '0', transparency_log_parked: '0' });
    state.size = 13;
    state.parked = 'the tiles no longer give the checkpoint signed before';
    expect(await scrape(registry)).to.include({ transparency_log_size: '13', transparency_log_parked: '1' });
    state.parked = undefined;
    expect(await scrape(registry)).to.include({ transparency_log_size: '13', transparency_log_parked: '0' });
  });

  it('counts each refused tree once, however many scrapes see it', async () => {
    const registry = new Registry();
    const { state, log } = logOf();
    transparencyLogMetrics(registry, log);
    expect(await scrape(registry)).to.include({ transparency_log_refused_trees_total: '0' });
    state.refusals = 2;
    expect(await scrape(registry)).to.include({ transparency_log_refused_trees_total: '2' });
    expect(await scrape(registry), 'no refusal since').to.include({ transparency_log_refused_trees_total: '2' });
    state.refusals = 3;
    expect(await scrape(registry)).to.include({ transparency_log_refused_trees_total: '3' });
  });
});
