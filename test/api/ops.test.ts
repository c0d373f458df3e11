import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Koa from 'koa';
import { Router } from '@koa/router';
import { expect } from 'chai';
import { createOpsApp, type Readiness } from '../../read-api/ops/ops-app.ts';
import { createMetricsRegistry, metricsMiddleware, rateLimitMetrics } from '../../read-api/ops/metrics.ts';
import { adminAuthMetrics } from '../../services/admin/admin-metrics.ts';

/** Which process answers (issue 42, item 7): this one, whose pid the test knows independently. */
interface Answer { process: { pid: number; instance: string } }
const thisProcess = (body: Answer) => {
  expect(body.process.pid).to.equal(process.pid);
  expect(body.process.instance).to.match(/^[0-9a-f]{16}$/);
  return body.process;
};

async function listen(app: Koa): Promise<{ base: string; server: Server }> {
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('operations port', () => {
  const servers: Server[] = [];
  afterEach(() => { for (const s of servers.splice(0)) { s.closeAllConnections(); s.close(); } });
  const serveOps = async (readiness: () => Promise<Readiness>, registry = createMetricsRegistry()) => {
    const { base, server } = await listen(createOpsApp({ readiness, registry }));
    servers.push(server);
    return base;
  };

  it('answers liveness with 200 even when the service is not ready, saying which process answers', async () => {
    const base = await serveOps(async () => ({ ready: false, checks: {} }));
    const answer = await fetch(`${base}/healthz`);
    expect(answer.status).to.equal(200);
    const body = await answer.json() as Answer;
    expect(body).to.deep.equal({ status: 'ok', process: thisProcess(body) });
  });

  it('answers readiness 200 with its checks when ready, 503 when not', async () => {
    let ready = true;
    const base = await serveOps(async () => ({ ready, checks: { read_store: ready ? 'ok' : 'unreachable' } }));
    const up = await fetch(`${base}/readyz`);
    expect(up.status).to.equal(200);
    const upBody = await up.json() as Answer;
    expect(upBody).to.deep.equal({ ready: true, checks: { read_store: 'ok' }, process: thisProcess(upBody) });
    ready = false;
    const down = await fetch(`${base}/readyz`);
    expect(down.status).to.equal(503);
    const downBody = await down.json();
    expect(downBody).to.deep.equal({ ready: false, checks: { read_store: 'unreachable' }, process: upBody.process });
  });

  it('answers readiness 503 when the check itself fails', async () => {
    const base = await serveOps(async () => { throw new Error('read store timed out'); });
    const answer = await fetch(`${base}/readyz`);
    expect(answer.status).to.equal(503);
    // The check's own text may name hosts or credentials (issue 17, finding 8).
    const body = await answer.json() as Answer;
    expect(body).to.deep.equal({ ready: false, checks: { error: 'readiness check failed' }, process: thisProcess(body) });
  });

  it('serves metrics in the Prometheus text format, projection figures and queue depth read at scrape time', async () => {
    let head = 120;
    const registry = createMetricsRegistry({
      projections: () => [{ name: 'watches', position: 100, failed: false }, { name: 'serials', position: 90, failed: true }],
      lag: async (position) => ({ events: head - position, seconds: (head - position) / 10 }),
      queueDepth: async () => 3,
    });
    const base = await serveOps(async () => ({ ready: true, checks: {} }), registry);
    const answer = await fetch(`${base}/metrics`);
    expect(answer.headers.get('content-type')).to.match(/^text\/plain/);
    const text = await answer.text();
    expect(text).to.include('projection_position{projection="watches"} 100');
    expect(text).to.include('projection_lag_events{projection="serials"} 30');
    expect(text).to.include('projection_lag_seconds{projection="serials"} 3');
    expect(text).to.include('projection_failed{projection="serials"} 1');
    expect(text).to.include('projection_queue_depth 3');
    head = 150;
    expect(await (await fetch(`${base}/metrics`)).text()).to.include('projection_lag_events{projection="watches"} 50');
  });

  it('shows the lag in time alone where the store cannot count events', async () => {
    const registry = createMetricsRegistry({
      projections: () => [{ name: 'watches', position: 1_000, failed: false }],
      lag: async () => ({ seconds: 12 }),
    });
    const text = await (await fetch(`${await serveOps(async () => ({ ready: true, checks: {} }), registry)}/metrics`)).text();
    expect(text).to.include('projection_lag_seconds{projection="watches"} 12');
    expect(text).not.to.match(/^projection_lag_events\{/m);
  });

  it('labels requests by route template and status, not by raw URL, and counts rate-limit refusals', async () => {
    const registry = createMetricsRegistry();
    const app = new Koa();
    const router = new Router();
    router.get('/api/public/catalogue/:reference', (ctx) => { ctx.body = { reference: ctx.params['reference'] }; });
    app.use(metricsMiddleware(registry)).use(router.routes());
    const { base, server } = await listen(app);
    servers.push(server);
    for (const ref of ['AUR-1', 'AUR-2', 'AUR-3']) await (await fetch(`${base}/api/public/catalogue/${ref}`)).arrayBuffer();
    await (await fetch(`${base}/no/such/${Math.random()}`)).arrayBuffer();
    rateLimitMetrics(registry).rejected('verify');

    const text = await registry.metrics();
    expect(text).to.include('http_requests_total{method="GET",route="/api/public/catalogue/:reference",status="200"} 3');
    expect(text).to.include('http_requests_total{method="GET",route="unmatched",status="404"} 1');
    expect(text).to.include('http_request_duration_seconds_count{method="GET",route="/api/public/catalogue/:reference",status="200"} 3');
    expect(text).to.include('http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/api/public/catalogue/:reference",status="200"} 3');
    // Buckets are cumulative, end at the count, and the sum is that of 3 positive durations.
    const buckets = [...text.matchAll(/^http_request_duration_seconds_bucket\{le="[^"]+",method="GET",route="\/api\/public\/catalogue\/:reference",status="200"\} (\d+)$/gm)]
      .map((match) => Number(match[1]));
    expect(buckets).to.have.length(12);
    expect(buckets).to.deep.equal([...buckets].sort((a, b) => a - b));
    const sum = Number(/^http_request_duration_seconds_sum\{method="GET",route="\/api\/public\/catalogue\/:reference",status="200"\} (\S+)$/m.exec(text)?.[1]);
    expect(sum).to.be.greaterThan(0);
    expect(text).not.to.include('AUR-1');
    // A second scrape shows the same counts (handed over, not added again).
    expect(await registry.metrics()).to.include('http_requests_total{method="GET",route="/api/public/catalogue/:reference",status="200"} 3');
    expect(text).to.include('rate_limit_rejections_total{limit="verify"} 1');
  });

  it('counts failed admin authentications by outcome (issue 17, finding 3)', async () => {
    const registry = createMetricsRegistry();
    const failures = adminAuthMetrics(registry);
    failures.failed('refused');
    failures.failed('refused');
    failures.failed('throttled');
    const text = await registry.metrics();
    expect(text).to.include('admin_auth_failures_total{outcome="refused"} 2');
    expect(text).to.include('admin_auth_failures_total{outcome="throttled"} 1');
  });
});
