/**
 * The deploy files, checked as far as a machine without Docker allows: the compose files against the Compose
 * Specification's JSON schema (test/fixtures/compose-spec), and the properties the stack must keep to be run
 * safely: no engine reachable from outside, no default admin key, one entry point that alone is trusted to name
 * the client, healthchecks that need no curl, one image, a stop that ends before Docker's kill.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { expect } from 'chai';
import { CORE_SCHEMA, load as loadYaml, mergeTag } from 'js-yaml';
import { SHUTDOWN_DEADLINE_MS } from '../../shared/process/shutdown.ts';

const file = (path: string) => readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), 'utf8');

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  networks?: string[] | Record<string, { ipv4_address?: string } | null>;
  healthcheck?: { test: string[]; interval?: string; timeout?: string; retries?: number };
  init?: boolean;
  stop_grace_period?: string;
  profiles?: string[];
  pull_policy?: string;
}
interface Compose { services: Record<string, Service>; volumes?: Record<string, unknown>; networks?: Record<string, { ipam?: { config?: { subnet: string }[] } }> }

/** YAML as Compose reads it: the core schema with merge keys (`<<: *app`). */
const load = (path: string) => loadYaml(file(path), { schema: CORE_SCHEMA.withTags(mergeTag) }) as Compose;
const compose = load('infra/docker-compose.yml');
const devOverride = load('infra/docker-compose.dev.yml');
const services = compose.services;
const ENGINES = ['eventstore', 'mongodb', 'redis'];
const APP = ['services', 'projector', 'api', 'seed'];

function seconds(duration: string): number {
  const match = /^(\d+)s$/.exec(duration);
  if (!match) throw new Error(`unexpected duration ${duration}`);
  return Number(match[1]);
}

describe('infra/docker-compose.yml', () => {
  it('is a valid Compose file, and so is the dev override, per the Compose Specification schema', () => {
    const validate = new Ajv({ allErrors: true, strict: false, validateSchema: false }).compile(JSON.parse(file('test/fixtures/compose-spec/compose-spec.json')) as object);
    for (const [name, document] of [['docker-compose.yml', compose], ['docker-compose.dev.yml', devOverride]] as const) {
      expect(validate(document), `${name}: ${JSON.stringify(validate.errors)}`).to.equal(true);
    }
  });

  it('publishes no engine port; the dev override publishes them on the host\'s loopback only', () => {
    for (const engine of ENGINES) expect(services[engine]!.ports, engine).to.equal(undefined);
    expect(Object.keys(devOverride.services).sort()).to.deep.equal([...ENGINES].sort());
    for (const engine of ENGINES) {
      expect(devOverride.services[engine]!.ports).to.have.length.above(0);
      for (const port of devOverride.services[engine]!.ports!) expect(port, engine).to.match(/^127\.0\.0\.1:/);
    }
  });

  it('refuses to start without admin keys, and holds no key anywhere', () => {
    expect(services['services']!.environment!['ADMIN_API_KEYS']).to.match(/^\$\{ADMIN_API_KEYS:\?[^}]+\}$/);
    for (const path of ['infra/docker-compose.yml', 'infra/docker-compose.dev.yml', 'infra/Dockerfile', 'infra/Caddyfile']) {
      expect(file(path), path).not.to.match(/change-me|ADMIN_API_KEYS:-/i);
    }
  });

  it('refuses to start the API replicas without one signing key and its history, and one log key and its history, shared by all of them (no empty default)', () => {
    // A replica left to generate its own key signs answers the key set another replica serves does not list.
    const apiServices = Object.entries(services).filter(([, s]) => s.command?.some((part) => /read-api\/main\.js$|dist\/main\.js$/.test(part)));
    expect(apiServices.map(([name]) => name)).to.deep.equal(['api']);
    for (const [name, service] of apiServices) {
      for (const setting of ['RESPONSE_SIGNING_KEY', 'RESPONSE_SIGNING_KEYS', 'TRANSPARENCY_LOG_KEY', 'TRANSPARENCY_LOG_KEYS']) {
        expect(service.environment![setting], `${name} ${setting}`).to.match(new RegExp(`^\\$\\{${setting}:\\?[^}]+\\}$`));
      }
    }
    expect(file('infra/docker-compose.yml')).not.to.match(/RESPONSE_SIGNING_KEYS?:-|TRANSPARENCY_LOG_KEYS?:-/);
    // Optional, for a rotation of the log key only; empty reads as unset.
    expect(services['api']!.environment!['TRANSPARENCY_LOG_PREVIOUS_KEY']).to.equal('${TRANSPARENCY_LOG_PREVIOUS_KEY:-}');
  });

  it('has one public entry point, the proxy, which alone the API trusts to name the client', () => {
    const published = Object.entries(services).filter(([, s]) => s.ports?.some((p) => !p.startsWith('127.0.0.1:')));
    expect(published.map(([name]) => name)).to.deep.equal(['proxy']);
    expect(services['api']!.ports).to.equal(undefined);
    const withTrust = Object.entries(services).filter(([, s]) => s.environment?.['TRUST_PROXY'] !== undefined);
    expect(withTrust.map(([name]) => name)).to.deep.equal(['api']);
    const proxyAddress = (services['proxy']!.networks as Record<string, { ipv4_address: string }>)['edge']!.ipv4_address;
    expect(services['api']!.environment!['TRUST_PROXY']!.split(',')).to.deep.equal([proxyAddress]);
    const subnet = compose.networks!['edge']!.ipam!.config![0]!.subnet;
    expect(proxyAddress.split('.').slice(0, 3)).to.deep.equal(subnet.split('/')[0]!.split('.').slice(0, 3));
    expect(services['api']!.networks).to.include('edge');
    expect(services['api']!.environment!['PUBLIC_BASE_URL']).to.match(/^\$\{PUBLIC_BASE_URL:-https?:\/\/[^}]+\}$/);
    const caddyfile = file('infra/Caddyfile');
    expect(caddyfile).to.match(/name api\b/).and.to.match(/port 3000\b/);
    expect(caddyfile).not.to.contain('trusted_proxies');
  });

  it('keeps Redis on a named volume, appending to its log and never evicting BullMQ\'s keys', () => {
    const redis = services['redis']!;
    expect(redis.volumes).to.deep.equal(['redis-data:/data']);
    expect(compose.volumes).to.have.property('redis-data');
    expect(redis.command!.join(' ')).to.contain('--appendonly yes').and.to.contain('--maxmemory-policy noeviction');
  });

  it('runs the app services from one image built once, with init, a grace above their own stop deadline and node healthchecks', () => {
    const built = Object.entries(services).filter(([, s]) => s.build !== undefined);
    expect(built.map(([name]) => name)).to.deep.equal(['services']);
    for (const name of APP) {
      const service = services[name]!;
      expect(service.image, name).to.equal(services['services']!.image);
      expect(service.init, name).to.equal(true);
      expect(seconds(service.stop_grace_period!) * 1000, name).to.be.above(SHUTDOWN_DEADLINE_MS);
      if (name !== 'services') expect(service.pull_policy, name).to.equal('never');
    }
    for (const name of ['services', 'projector', 'api']) {
      const test = services[name]!.healthcheck!.test;
      expect(test.slice(0, 3), name).to.deep.equal(['CMD', 'node', '-e']);
    }
  });

  it('checks that Prometheus is ready, on the port it listens on, with the wget of its busybox image (issue 42)', () => {
    const prometheus = services['prometheus']!;
    // No --web.listen-address: Prometheus listens on its default 9090, the port the file publishes.
    expect(prometheus.command!.some((flag) => flag.startsWith('--web.listen-address'))).to.equal(false);
    expect(prometheus.ports).to.deep.equal(['127.0.0.1:9090:9090']);
    expect(prometheus.healthcheck!.test).to.deep.equal(['CMD', 'wget', '-q', '-O', '/dev/null', 'http://127.0.0.1:9090/-/ready']);
    expect(seconds(prometheus.healthcheck!.timeout!)).to.be.below(seconds(prometheus.healthcheck!.interval!));
    expect(prometheus.healthcheck!.retries).to.be.at.least(1);
  });

  it('runs the compiled program (dist/) with plain node: no TypeScript loader in production', () => {
    const commands = Object.fromEntries(['services', 'projector', 'api'].map((name) => [name, services[name]!.command]));
    expect(commands).to.deep.equal({
      services: ['node', 'dist/services/main.js'], projector: ['node', 'dist/projector/main.js'], api: ['node', 'dist/read-api/main.js'],
    });
  });

  it('seeds the demo catalogue with a one-shot service under the demo profile', () => {
    expect(services['seed']).to.include({ restart: 'no' });
    expect(services['seed']!.profiles).to.deep.equal(['demo']);
    expect(services['seed']!.command).to.deep.equal(['node', 'bin/watchcat.js', 'seed']);
  });

  it('pins EventStoreDB to a patch release at or after 22.6 (stream reads carry positions)', () => {
    const match = /^eventstore\/eventstore:(\d+)\.(\d+)\.(\d+)(-[a-z0-9-]+)?$/.exec(services['eventstore']!.image!);
    expect(match, services['eventstore']!.image).not.to.equal(null);
    const [major, minor] = [Number(match![1]), Number(match![2])];
    expect(major > 22 || (major === 22 && minor >= 6)).to.equal(true);
  });
});

describe('infra/Dockerfile and .dockerignore', () => {
  const dockerfile = file('infra/Dockerfile');

  it('builds and runs on a pinned Node LTS that package.json engines names, beside the Node 20 the tests run on', () => {
    const version = /^ARG NODE_VERSION=(\d+)\.(\d+)\.(\d+)$/m.exec(dockerfile);
    expect(version).not.to.equal(null);
    const major = Number(version![1]);
    expect([22, 24]).to.include(major);
    expect(dockerfile.match(/^FROM node:\$\{NODE_VERSION\}-bookworm-slim/gm)).to.have.length(2);
    const engines = (JSON.parse(file('package.json')) as { engines: { node: string } }).engines.node;
    // The image's exact version is the lowest the suite ran on in that line (.ci/run runs it): engines starts there.
    expect(engines.split('||').map((range) => range.trim())).to.include.members(['^20.19.0', `^${major}.${version![2]}.${version![3]}`]);
  });

  it('builds dist/ in a build stage and runs it with plain node, keeping only production dependencies', () => {
    expect(dockerfile).to.match(/^RUN npm ci && npm prune --omit=dev$/m);
    expect(dockerfile).to.match(/^COPY --from=build \/app\/dist \.\/dist$/m);
    expect(dockerfile).to.match(/^CMD \["node", "dist\/main\.js"\]$/m);
    expect(dockerfile).not.to.contain('tsx');
  });

  it('lets the runtime user create the embedded store\'s data/ and nothing else', () => {
    expect(dockerfile).to.match(/^RUN mkdir -p data && chown node:node data$/m);
    expect(dockerfile).to.match(/^USER node$/m);
    expect(dockerfile).not.to.contain('--chown');
  });

  it('keeps the host\'s node_modules, history, local data and env files out of the build', () => {
    const ignored = file('.dockerignore').split('\n').filter((line) => line && !line.startsWith('#'));
    expect(ignored).to.include.members(['node_modules', '.git', 'data', '.env', '.env.*']);
  });
});
