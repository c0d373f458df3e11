/**
 * A child process for the test of the signers' record shared by several processes (read-api/transparency/
 * checkpoint-file.ts): prints READY, waits until GO_FILE exists, then saves a signed checkpoint of each size from 1
 * to LAST, in order and a moment apart, as a signer does, into DATA_DIR's record, and prints DONE.
 * Usage: node --import tsx checkpoint-record-child.ts DATA_DIR GO_FILE LAST
 */
import { existsSync } from 'node:fs';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { checkpointFile } from '../../../read-api/transparency/checkpoint-file.ts';
import { checkpointBody } from '../../../shared/read-model/transparency/checkpoint.ts';
import { signNote } from '../../../shared/read-model/transparency/signed-note.ts';

const [dataDir, goFile, last] = process.argv.slice(2);
if (!dataDir || !goFile || !last) throw new Error('usage: checkpoint-record-child.ts DATA_DIR GO_FILE LAST');
const origin = 'watch.example/watchcat/events';
const key = generateKeyPairSync('ed25519').privateKey;
const notes = Array.from({ length: Number(last) }, (_, i) => signNote(checkpointBody({ origin, size: i + 1, root: randomBytes(32), extensions: [] }), origin, key));
const record = checkpointFile(dataDir);
console.log('READY');
while (!existsSync(goFile)) await sleep(5);
// A pause between saves, as between a signer's looks: the test's reader, on a loaded machine too, sees the record
// at many sizes while both children save, not only at their last.
for (const note of notes) {
  record.save(note);
  await sleep(1);
}
console.log('DONE');
