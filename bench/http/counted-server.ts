/**
 * One server of bench/chain-instructions.ts, in a process of its own so that callgrind counts it alone:
 * `node --import tsx bench/http/counted-server.ts SIDE [ANSWERS.json]`. SIDE is a variant of our chain
 * (chain-variants.ts, over the demo read model) or a floor of the client's stack (koa-floor.ts, replaying the answers
 * the bench recorded from ours, in ANSWERS.json). Writes its URL as one line on stdout once it listens.
 */
import { readFileSync } from 'node:fs';
import { demoReadModel } from '../fixtures/demo-read-model.ts';
import { chainSetting, isChainVariant, startChainVariant } from './chain-variants.ts';
import { isFloorKind, startKoaFloor } from './koa-floor.ts';
import { answersFromJson } from './targets.ts';

// Under callgrind the clock's polls would be counted in the requests; ten minutes keeps them out of a run.
const RARE_POLL_MS = 600_000;

const [side = '', answersFile] = process.argv.slice(2);
// Every side holds the demo read model, a floor too, as in bench/chain-cost.ts where all share one process: V8 sizes
// its heap, and so how often it collects it whole, by what the process holds (a floor with a heap of a few megabytes
// collected it whole every few hundred requests here, and its count rose by a quarter).
const readStore = await demoReadModel();
let url: string;
if (isFloorKind(side)) {
  if (answersFile === undefined) throw new Error(`counted-server: the floor ${side} needs the answers file`);
  url = (await startKoaFloor(answersFromJson(readFileSync(answersFile, 'utf8')), side)).url;
} else if (isChainVariant(side)) {
  url = (await startChainVariant(side, await chainSetting(readStore, RARE_POLL_MS))).url;
} else {
  throw new Error(`counted-server: no side ${side}`);
}
process.stdout.write(`${url}\n`);
