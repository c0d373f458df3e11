/**
 * README.md's Metrics table is what an operator scrapes and alerts on: each metric a process registers is named
 * in it, and each metric it names is registered. Expected: the names in the table; actual: the metric names the
 * sources give prom-client (string literals of the metric families' prefixes). On main at 7ad5f72 the table left out
 * `read_model_built`, `read_model_fresh`, `read_model_lag_seconds`, `read_model_freshness_tickets_current`,
 * `projector_freshness_ticket_current`, `projection_failed` and the transparency log's three.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SOURCES = ['services', 'projector', 'read-api', 'shared', 'main.ts', 'all-in-one.ts'];
const METRIC = /(?:http|projection|projector|read_model|rate_limit|answers|commands|admin|event_store|transparency_log)_[a-z_]+/;

function sourceFiles(path: string): string[] {
  if (path.endsWith('.ts')) return [join(ROOT, path)];
  return readdirSync(join(ROOT, path), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

function registered(): Set<string> {
  const names = new Set<string>();
  const literal = new RegExp(`['\`](${METRIC.source})['\`]`, 'g');
  for (const file of SOURCES.flatMap(sourceFiles)) {
    for (const match of readFileSync(join(file), 'utf8').matchAll(literal)) names.add(match[1]!);
  }
  return names;
}

function documented(): Set<string> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('**Metrics.**');
  const table = readme.slice(start, readme.indexOf('\n\n', readme.indexOf('\n|', start)));
  return new Set([...table.matchAll(new RegExp(`\`(${METRIC.source})(?:\\{[^}]*\\})?\``, 'g'))].map((match) => match[1]!));
}

describe('README metrics table against the metrics registered', () => {
  it('names every metric a process registers, and only those', () => {
    const code = registered();
    const table = documented();
    expect(code.size, 'metrics found in the sources').to.be.greaterThan(20);
    expect([...code].filter((name) => !table.has(name)).sort(), 'registered but not in the table').to.deep.equal([]);
    expect([...table].filter((name) => !code.has(name)).sort(), 'in the table but not registered').to.deep.equal([]);
  });
});
