/**
 * The operations port of the projector and admin API processes: 200 while healthy, 503 otherwise, loopback only;
 * their Prometheus metrics when given a registry (issue 29, item 2).
 */
import { expect } from 'chai';
import { Counter, Registry } from 'prom-client';
import { startHealthServer, type HealthServer } from '../../../shared/process/health-server.ts';

/** The answering process (issue 42, item 7): this one, by the pid the test knows independently. */
interface Answer { process: { pid: number; instance: string } }
const thisProcess = (body: Answer) => {
  expect(body.process.pid).to.equal(process.pid);
  expect(body.process.instance).to.match(/^[0-9a-f]{16}$/);
  return body.process;
};

describe('health server', () => {
  let server: HealthServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('answers 200 with its checks while healthy and 503 once not, read at each request', async () => {
    let healthy = true;
    server = await startHealthServer(0, '127.0.0.1', () => ({ healthy, checks: { projections: healthy ? 'ok' : 'failed' } }));
    const first = await fetch(`http://127.0.0.1:${server.port}/healthz`);
    expect(first.status).to.equal(200);
    const firstBody = await first.json() as Answer;
    expect(firstBody).to.deep.equal({ healthy: true, checks: { projections: 'ok' }, process: thisProcess(firstBody) });
    healthy = false;
    const second = await fetch(`http://127.0.0.1:${server.port}/healthz`);
    expect(second.status).to.equal(503);
    expect(await second.json()).to.deep.equal({ healthy: false, checks: { projections: 'failed' }, process: firstBody.process });
  });

  it('answers 503 naming the error when the check throws, and 404 elsewhere', async () => {
    server = await startHealthServer(0, '127.0.0.1', () => { throw new Error('read store unreachable'); });
    const failed = await fetch(`http://127.0.0.1:${server.port}/healthz`);
    expect(failed.status).to.equal(503);
    const failedBody = await failed.json() as Answer;
    expect(failedBody).to.deep.equal({ healthy: false, checks: { error: 'read store unreachable' }, process: thisProcess(failedBody) });
    expect((await fetch(`http://127.0.0.1:${server.port}/metrics`)).status).to.equal(404);
  });

  it('serves the registry given on GET /metrics in the Prometheus text format', async () => {
    const registry = new Registry();
    new Counter({ name: 'watchcat_test_total', help: 'A test counter', registers: [registry] }).inc(3);
    server = await startHealthServer(0, '127.0.0.1', () => ({ healthy: true, checks: {} }), registry);
    const answer = await fetch(`http://127.0.0.1:${server.port}/metrics`);
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    expect(await answer.text()).to.match(/^watchcat_test_total 3$/m);
  });
});
