/**
 * The README's Settings table is the operator's list of environment variables: every variable the code reads is a
 * row of it (or, for the OS's own, named as `$NAME` in a row), and every row is read, with the default the row says.
 * Expected values come from the README; the actual ones from the code: the configuration schema (`Env`), the
 * per-process defaults the mains give `loadConfigOrExit`, and every other read of an environment object in the
 * sources (`env['NAME']`, `process.env.NAME`). On main at 7ad5f72 the CLI read `WATCHCAT_ACTOR` (and `$USER`,
 * `$LOGNAME`) that the table did not list.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { Env } from '../../shared/config/config.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SOURCES = ['services', 'projector', 'read-api', 'shared', 'main.ts', 'all-in-one.ts', 'bin'];

interface Row { name: string; default: string; meaning: string }

/** The rows of the table under `## Settings`: `| \`NAME\` | default | meaning |`. */
function settingsRows(): Row[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Settings\n'));
  const table = section.slice(0, section.indexOf('\n## ', 1));
  return [...table.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \| ([^|]*) \| (.*) \|$/gm)]
    .map((match) => ({ name: match[1]!, default: match[2]!.trim(), meaning: match[3]! }));
}

function sourceFiles(path: string): string[] {
  const full = join(ROOT, path);
  if (/\.(ts|js|mjs)$/.test(path)) return [full];
  return readdirSync(full, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Names read from an environment object anywhere in the sources, beside the schema's. */
function namesReadOutsideTheSchema(): Set<string> {
  const names = new Set<string>();
  for (const file of SOURCES.flatMap(sourceFiles)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]*)\b|\[['"]([A-Z][A-Z0-9_]*)['"]\])/g)) names.add(match[1] ?? match[2]!);
  }
  return names;
}

/** The defaults the process mains give `loadConfigOrExit` over the schema's, by npm script. */
function processDefaults(): Map<string, Record<string, unknown>> {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const defaults = new Map<string, Record<string, unknown>>();
  for (const [script, line] of Object.entries(scripts)) {
    const main = /^node dist\/(\S+)\.js$/.exec(line)?.[1];
    if (main === undefined) continue;
    const text = readFileSync(join(ROOT, `${main}.ts`), 'utf8');
    const given = /loadConfigOrExit\('[^']*', \{([^}]*)\}/.exec(text)?.[1] ?? '';
    defaults.set(script, Object.fromEntries([...given.matchAll(/([A-Z_]+): ([^,\s]+)/g)].map((m) => [m[1]!, JSON.parse(m[2]!)])));
  }
  return defaults;
}

const properties = (Env as unknown as { properties: Record<string, { default?: unknown }> }).properties;

/** How the table writes a default: `` `3000` `` (with a note after it allowed), `unset`, `empty`. */
function writtenDefault(value: unknown): string {
  if (value === undefined) return 'unset';
  if (value === '') return 'empty';
  return `\`${String(value)}\``;
}

describe('README settings table against the code', () => {
  const rows = settingsRows();

  it('finds the table', () => {
    expect(rows.length, 'rows of the Settings table').to.be.greaterThan(20);
  });

  it('lists every variable the code reads, and only those', () => {
    const listed = new Set(rows.map((row) => row.name));
    const named = new Set(rows.flatMap((row) => [...row.meaning.matchAll(/`\$([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!)));
    const read = new Set([...Object.keys(properties), ...namesReadOutsideTheSchema()]);
    expect([...read].filter((name) => !listed.has(name) && !named.has(name)).sort(), 'read but not documented').to.deep.equal([]);
    expect([...listed].filter((name) => !read.has(name)).sort(), 'documented but never read').to.deep.equal([]);
  });

  it('gives each schema setting the default the code has', () => {
    const wrong = rows.filter((row) => row.name in properties).flatMap((row) => {
      const expected = writtenDefault(properties[row.name]!.default);
      return row.default === expected || row.default.startsWith(`${expected} (`) ? [] : [`${row.name}: README ${row.default}, code ${expected}`];
    });
    expect(wrong).to.deep.equal([]);
  });

  it('gives each per-process default as the process main sets it', () => {
    for (const [script, defaults] of processDefaults()) {
      for (const [name, value] of Object.entries(defaults)) {
        const row = rows.find((candidate) => candidate.name === name);
        expect(row?.default, `${name} of ${script}`).to.include(`\`${String(value)}\` (\`${script}\`)`);
      }
    }
    // The schema's own default is the one of the processes that give none.
    const healthRow = rows.find((row) => row.name === 'HEALTH_PORT')!;
    expect(healthRow.default).to.include(`\`${String(properties['HEALTH_PORT']!.default)}\` (\`start:services\`)`);
    expect(processDefaults().get('start:services'), 'start:services keeps the schema default').to.deep.equal({});
  });
});
