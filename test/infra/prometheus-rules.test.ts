/**
 * Issue 29, item 2: the Prometheus files beside the compose file, checked by Prometheus's own tool (Debian's
 * `prometheus` package, installed by .ci/run): both scrape configurations and the alert rules are valid, and the
 * rules' unit tests (infra/prometheus/alerts.test.yml: lag past the bound, a parked projection, 5xx and 503 rates,
 * the Redis fallback, the transparency log refusing a tree: issue 41, hang-ups counted as 499 that page nobody: issue
 * 42, freshness tickets away for 2 minutes: issue 44) pass. A missing promtool skips here and fails under CI=true.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';

const PROMETHEUS_DIR = fileURLToPath(new URL('../../infra/prometheus/', import.meta.url));
const run = promisify(execFile);
const promtool = (...args: string[]) => run('promtool', args, { cwd: PROMETHEUS_DIR });

describe('Prometheus configuration and alert rules (promtool)', function () {
  this.timeout(60_000);

  before(async function () {
    try {
      await promtool('--version');
    } catch {
      if (process.env['CI'] === 'true') throw new Error('CI=true and promtool is missing (Debian package prometheus)');
      this.skip();
    }
  });

  it('finds the compose and one-machine scrape configurations valid, with their rule file', async () => {
    const { stdout } = await promtool('check', 'config', 'prometheus.yml', 'local.yml');
    expect(stdout.match(/SUCCESS: \w+\.yml is valid prometheus config file syntax/g)).to.have.length(2);
  });

  it('finds the seven alert rules valid', async () => {
    const { stdout } = await promtool('check', 'rules', 'alerts.yml');
    expect(stdout).to.include('SUCCESS: 7 rules found');
  });

  it('passes the rules\' unit tests: each alert fires on what should fire it, and only then', async () => {
    const { stdout } = await promtool('test', 'rules', 'alerts.test.yml');
    expect(stdout).to.match(/SUCCESS/);
  });
});
