/**
 * A child process for the control-document race test: one store connection that, for each `ROUND r SPIN` line on
 * its stdin, busy-waits SPIN microseconds (the seeded jitter the parent drew) and then tries the compare-and-set
 * that takes an expired lease: from version r to r+1. It prints `WON r` or `LOST r`; READY once connected.
 * Usage: MONGODB_URL=... node --import tsx control-race-child.ts DATABASE NAME
 */
import { createInterface } from 'node:readline';
import { createMongoReadStore } from '../../shared/adapters/mongodb-read-store.ts';

const [database, name] = process.argv.slice(2);
const url = process.env['MONGODB_URL'];
if (!url || !database || !name) throw new Error('usage: MONGODB_URL=... control-race-child.ts DATABASE NAME');

const store = await createMongoReadStore(url, database);
console.log('READY');
for await (const line of createInterface({ input: process.stdin })) {
  const [word, round, spin] = line.split(' ');
  if (word !== 'ROUND') break;
  const r = Number(round);
  const until = performance.now() + Number(spin) / 1000;
  while (performance.now() < until);
  const won = await store.setControl({ _id: 'lease:race', token: r + 1, owner: name, expires_at: 0 }, { token: r, expires_at: 0 }, false);
  console.log(`${won ? 'WON' : 'LOST'} ${r}`);
}
await store.close();
