/**
 * `node mutation/survivors.mjs [REPORT]`: every mutant of a Stryker report (default `reports/mutation/mutation.json`)
 * that survived or that no test covered, as one Markdown table per file, for test/MUTANTS.md. Each row names the
 * mutant by its place and its change; the last column, why it is harmless, is written by hand.
 */
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync(process.argv[2] ?? 'reports/mutation/mutation.json', 'utf8'));
/** One line of a cell: a mutant's text can hold newlines and pipes. */
const cell = (text, max = 70) => {
  const flat = text.replace(/\s+/g, ' ').replaceAll('|', '\\|').replaceAll('`', "'");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

for (const [file, { source, mutants }] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
  const left = mutants.filter((mutant) => mutant.status === 'Survived' || mutant.status === 'NoCoverage')
    .sort((a, b) => a.location.start.line - b.location.start.line || a.location.start.column - b.location.start.column);
  if (left.length === 0) continue;
  const lines = source.split('\n');
  console.log(`\n### \`${file}\` (${left.length})\n\n| line | status | mutator | code | becomes | why harmless |\n|---|---|---|---|---|---|`);
  for (const { location: { start, end }, status, mutatorName, replacement } of left) {
    const original = start.line === end.line
      ? lines[start.line - 1].slice(start.column - 1, end.column - 1)
      : `${lines[start.line - 1].slice(start.column - 1)} …`;
    const kind = status === 'NoCoverage' ? 'no coverage' : 'survived';
    console.log(`| ${start.line}:${start.column} | ${kind} | ${mutatorName} | \`${cell(original)}\` | \`${cell(replacement ?? '')}\` | |`);
  }
}
