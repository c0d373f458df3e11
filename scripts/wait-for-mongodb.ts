/**
 * Waits until the MongoDB server at MONGODB_URL answers a ping (at most WAIT_MS, default 20 s); exits 0 when it
 * does, 1 when it does not. Used by scripts/with-ferretdb.sh after starting FerretDB.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';

const url = process.env['MONGODB_URL'];
if (!url) throw new Error('MONGODB_URL is not set');
const deadline = Date.now() + Number(process.env['WAIT_MS'] ?? 20_000);
let lastError: unknown;

async function answers(): Promise<boolean> {
  const client = new MongoClient(url!, { serverSelectionTimeoutMS: 1_000, connectTimeoutMS: 1_000 });
  try {
    await client.db('admin').command({ ping: 1 });
    return true;
  } catch (error) {
    lastError = error;
    return false;
  } finally {
    await client.close();
  }
}

while (Date.now() < deadline) {
  if (await answers()) process.exit(0);
  await sleep(200);
}
console.error(`no answer from ${url}: ${String(lastError)}`);
process.exit(1);
