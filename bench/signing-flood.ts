/**
 * `node --import tsx bench/signing-flood.ts [--quick]`: what a flood from one address costs the read API when it
 * asks for signatures, against the same flood without (issue 21: signing is paid for by the client's own limit, a
 * 429 is never signed). The API runs in this process with the contract's default limits (60 per minute), so after
 * the first 60 requests of a flood every answer is a 429; the load comes from autocannon in its own process
 * (load/load-runner.ts), 10 keep-alive connections from 127.0.0.1. Each variant gets a fresh server (fresh limit
 * windows); variants take turns in rounds. Reported per variant, medians over the rounds: answers per second, and
 * the server's CPU time per answer (this process's CPU time, which the load generator does not share). One JSON line.
 */
import { loadavg } from 'node:os';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { discoveryRoutes } from '../read-api/discovery/discovery-routes.ts';
import { startReadApi } from '../read-api/server.ts';
import { createMemoryReadStore } from '../shared/adapters/memory-read-store.ts';
import { publicBrand } from '../shared/brand.ts';
import { loadConfig } from '../shared/config/config.ts';
import { publicOperations } from '../shared/read-model/public-api/operations/index.ts';
import { testSigningKeys } from '../test/support/signing-keys.ts';
import { startLoadClient } from './load/load-client.ts';
import { median, round } from './report/stats.ts';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 2 : 5;
const SECONDS = quick ? 1 : 3;
const ASK = { 'accept-signature': 'sig1=("@status" "content-digest");alg="ed25519"' };

/** A public path (counted whether signed or not) and a path outside /api/public (counted only when it asks for a signature). */
const VARIANTS: Record<string, { path: string; headers: Record<string, string> }> = {
  plain_public: { path: '/api/public/verify/AUR-2021-000042', headers: {} },
  signing_public: { path: '/api/public/verify/AUR-2021-000042', headers: ASK },
  plain_unknown_path: { path: '/nowhere', headers: {} },
  signing_unknown_path: { path: '/nowhere', headers: ASK },
};

const config = loadConfig({ PORT: '0', OPS_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
const logger = pino({ level: 'warn', name: 'bench-signing-flood' }, pino.destination(2));
const signingKeys = await testSigningKeys();
const load = startLoadClient();

async function flood(variant: { path: string; headers: Record<string, string> }) {
  const running = await startReadApi({
    config, logger, readStore: createMemoryReadStore(), brand: publicBrand(config), signingKeys,
    extraRoutes: [discoveryRoutes({ operations: publicOperations, config, jwks: signingKeys.jwks })],
  });
  try {
    const url = `http://127.0.0.1:${(running.server.address() as AddressInfo).port}${variant.path}`;
    const cpuBefore = process.cpuUsage();
    const result = await load.run({ url, method: 'GET', headers: variant.headers, connections: 10, seconds: SECONDS });
    const cpu = process.cpuUsage(cpuBefore);
    return { rps: result.rps, cpuUsPerAnswer: (cpu.user + cpu.system) / result.requests, errors: result.errors };
  } finally {
    await running.close();
  }
}

const samples: Record<string, { rps: number[]; cpu: number[]; errors: number }> = {};
const loadAtStart = loadavg()[0];
for (let round_ = 0; round_ < ROUNDS; round_ += 1) {
  for (const [name, variant] of Object.entries(VARIANTS)) {
    const result = await flood(variant);
    const sample = (samples[name] ??= { rps: [], cpu: [], errors: 0 });
    sample.rps.push(result.rps);
    sample.cpu.push(result.cpuUsPerAnswer);
    sample.errors += result.errors;
  }
}
await load.close();
process.stdout.write(`${JSON.stringify({
  answers_per_second: Object.fromEntries(Object.entries(samples).map(([name, s]) => [name, round(median(s.rps))])),
  server_cpu_us_per_answer: Object.fromEntries(Object.entries(samples).map(([name, s]) => [name, round(median(s.cpu), 1)])),
  errors: Object.values(samples).reduce((sum, s) => sum + s.errors, 0),
  rounds: ROUNDS, seconds_per_flood: SECONDS,
  load_average: [loadAtStart, loadavg()[0]].map((value) => round(value ?? 0, 2)),
})}\n`);
