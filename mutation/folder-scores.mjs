/**
 * The mutation score of each folder of a Stryker JSON report, as Stryker counts the whole: mutants killed or timed
 * out, over those plus the survivors and the ones no test covered (compile errors, ignored and static mutants left
 * out). `npm run mutate` prints it after every run and fails when a folder is under the break threshold; a strong
 * folder must not hide a weak one in the overall score. `node mutation/folder-scores.mjs [REPORT] [BREAK]` prints the
 * table for a report of an earlier run.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const DETECTED = new Set(['Killed', 'Timeout']);

/** Each folder's counts and score (null when it has no mutant that counts), sorted by folder. */
export function folderScores(report) {
  const folders = new Map();
  for (const [file, { mutants }] of Object.entries(report.files)) {
    const folder = dirname(file);
    const counts = folders.get(folder) ?? { folder, killed: 0, survived: 0, noCoverage: 0 };
    for (const { status } of mutants) {
      if (DETECTED.has(status)) counts.killed += 1;
      else if (status === 'Survived') counts.survived += 1;
      else if (status === 'NoCoverage') counts.noCoverage += 1;
    }
    folders.set(folder, counts);
  }
  return [...folders.values()].sort((a, b) => a.folder.localeCompare(b.folder)).map((counts) => {
    const valid = counts.killed + counts.survived + counts.noCoverage;
    return { ...counts, score: valid === 0 ? null : (100 * counts.killed) / valid };
  });
}

/** The table, one row a folder, each under `breakAt` marked; and the folders under it. */
export function folderReport(report, breakAt) {
  const rows = folderScores(report);
  const under = rows.filter(({ score }) => score !== null && score < breakAt);
  const lines = [
    `Mutation score per folder (break at ${breakAt} %):`,
    ...rows.map(({ folder, killed, survived, noCoverage, score }) => {
      const shown = score === null ? '   n/a' : `${score.toFixed(2).padStart(6)} %`;
      const mark = score !== null && score < breakAt ? '  UNDER THE BREAK' : '';
      return `  ${shown}  ${folder}  (${killed} killed or timed out, ${survived} survived, ${noCoverage} not covered)${mark}`;
    }),
  ];
  return { text: lines.join('\n'), under: under.map(({ folder }) => folder) };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const report = JSON.parse(readFileSync(process.argv[2] ?? 'reports/mutation/mutation.json', 'utf8'));
  const { text, under } = folderReport(report, Number(process.argv[3] ?? 85));
  console.log(text);
  process.exit(under.length > 0 ? 1 : 0);
}
