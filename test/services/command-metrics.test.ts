/**
 * Issue 29, item 2: the services process counts its commands by type and outcome (`commands_total`, served on its
 * HEALTH_PORT's /metrics). Each command below is chosen for the outcome the contract of the back office gives it:
 * a first registration appends, a price set to the price it has changes nothing, a serial of an unknown watch is
 * refused.
 */
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { createCommandService } from '../../services/write/command-service.ts';
import { commandMetrics } from '../../services/admin/admin-metrics.ts';
import { importCatalogue } from '../../services/import/import-catalogue.ts';
import { tinyCatalogue } from './support/tiny-catalogue.ts';

describe('command metrics', () => {
  it('count each command by its type and outcome: appended, unchanged, refused', async () => {
    const store = openSqliteEventStore(':memory:');
    try {
      await importCatalogue(createCommandService(store), tinyCatalogue());
      const registry = new Registry();
      const commands = createCommandService(store, { onOutcome: commandMetrics(registry) });
      await commands.registerSerial('AUR-2025-000001', 'AUR-LU-001', 2025);
      await commands.changeWatchPrice('AUR-LU-002', 21_000);
      await commands.changeWatchPrice('AUR-LU-002', 21_000);
      await commands.registerSerial('AUR-2025-000002', 'NO-SUCH-WATCH', 2025).catch(() => undefined);
      const { values } = (await registry.getSingleMetric('commands_total')!.get());
      const counted = Object.fromEntries(values.map(({ labels, value }) => [`${labels['command']} ${labels['outcome']}`, value]));
      expect(counted).to.deep.equal({
        'RegisterSerial appended': 1, 'ChangeWatchPrice appended': 1, 'ChangeWatchPrice unchanged': 1, 'RegisterSerial refused': 1,
      });
    } finally {
      await store.close();
    }
  });
});
