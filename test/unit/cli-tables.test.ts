/**
 * The command tables of README.md ("Back-office tools") and docs/audit.md name each `watchcat` command with its flags:
 * each command they name exists, each flag they give it is one it takes, and each flag it takes is given in one of
 * the tables. Expected: the tables; actual: the program's commander tree (its `--help`). On main at 7ad5f72 no table
 * named `receipt verify --allow-plain-http`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { Command } from 'commander';
import { CLI_MODULES } from '../../services/cli/commands.ts';
import { createCliContext } from '../../services/cli/cli-context.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Every command of the program by its path (`audit log verify`), with its long flags. */
function programCommands(): Map<string, Set<string>> {
  const program = new Command('watchcat');
  const context = createCliContext({}, { out: () => undefined, note: () => undefined });
  for (const register of CLI_MODULES) register(program, context);
  const commands = new Map<string, Set<string>>();
  const walk = (command: Command, path: string[]) => {
    for (const sub of command.commands) {
      const at = [...path, sub.name()];
      commands.set(at.join(' '), new Set(sub.options.map((option) => option.long!).filter((flag) => flag !== undefined)));
      walk(sub, at);
    }
  };
  walk(program, []);
  return commands;
}

/**
 * The commands of the first cells of the tables: each code span of a row's first cell is a command line
 * (`watch create [--file FILE] [--name-en\|--name-fr TEXT] [--description-en\|-fr TEXT]`), `npx watchcat` dropped.
 */
function documentedCommands(known: Map<string, Set<string>>): Map<string, Set<string>> {
  const tables = ['README.md', 'docs/audit.md'].map((file) => readFileSync(join(ROOT, file), 'utf8'));
  const documented = new Map<string, Set<string>>();
  for (const text of tables) {
    for (const [, cell] of text.matchAll(/^\| (`[^|]*(?:\\\|[^|]*)*) \|/gm)) {
      for (const [, span] of cell!.matchAll(/`([^`]+)`/g)) {
        const words = span!.replace(/^npx watchcat /, '').split(/\s+/);
        const path: string[] = [];
        while (path.length < words.length && known.has([...path, words[path.length]].join(' '))) path.push(words[path.length]!);
        if (path.length === 0) continue;
        const flags = new Set<string>();
        for (const [, flag, shorthand] of span!.matchAll(/(--[a-z][a-z-]*)((?:\\\|-[a-z]+)*)/g)) {
          flags.add(flag!);
          // `--description-en\|-fr`: the same flag with its last part changed.
          for (const [, tail] of shorthand!.matchAll(/\\\|(-[a-z]+)(?![a-z-])/g)) flags.add(flag!.replace(/-[a-z]+$/, tail!));
        }
        const name = path.join(' ');
        documented.set(name, new Set([...(documented.get(name) ?? []), ...flags]));
      }
    }
  }
  return documented;
}

describe('README.md and docs/audit.md command tables against the watchcat program', () => {
  const program = programCommands();
  const documented = documentedCommands(program);

  it('finds the tables', () => {
    expect(documented.size, 'commands named').to.be.greaterThan(20);
  });

  it('gives each command only flags it takes', () => {
    const unknown = [...documented].flatMap(([name, flags]) => [...flags].filter((flag) => !program.get(name)!.has(flag)).map((flag) => `${name} ${flag}`));
    expect(unknown).to.deep.equal([]);
  });

  it('gives each flag of a command it names', () => {
    const missing = [...documented.keys()].flatMap((name) => [...program.get(name)!].filter((flag) => !documented.get(name)!.has(flag)).map((flag) => `${name} ${flag}`));
    expect(missing).to.deep.equal([]);
  });
});
