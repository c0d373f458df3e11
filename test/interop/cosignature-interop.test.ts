/**
 * Our witness's cosignatures read by code written elsewhere (docs/audit.md, "Witnesses"): filippo.io/torchwood v0.6.1,
 * the code behind litewitness, and Go's golang.org/x/mod/sumdb/note, through the small program in
 * test/interop/cosignature. From the witness's own key, torchwood writes the witness's verifier key as ours prints it;
 * Go's note.Open verifies both the log's signature and the witness's cosignature of a checkpoint it cosigned, and
 * torchwood reads the cosignature's timestamp; a cosignature altered after signing makes note.Open fail. A checkpoint
 * with the serial index's extension line (shared/read-model/transparency/serial-index.ts) is read by torchwood's ParseCheckpoint
 * with the line as its extension, and the log's signature and the cosignature both cover the line.
 */
import { generateKeyPairSync } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { checkpointBody } from '../../shared/read-model/transparency/checkpoint.ts';
import { MemoryTree } from '../../shared/read-model/transparency/memory-tree.ts';
import { indexExtension } from '../../shared/read-model/transparency/serial-index.ts';
import { parseVerifierKey, signNote, verifierKey } from '../../shared/read-model/transparency/signed-note.ts';
import { Witness, type WitnessedTree } from '../../services/witness/witness.ts';
import { askGoProgram, buildGoProgram } from '../support/go-program.ts';
import { cannotRun, registerLegSuite } from '../support/legs.ts';

const ORIGIN = 'watch.example/watchcat/events';
const NAME = 'witness.example/w1';
const NOW = 1_700_000_123;
const SOURCE = fileURLToPath(new URL('./cosignature', import.meta.url));

interface GoAnswer { error: string; witness_key: string; verified: string[] | null; timestamps: number[] | null; unverified: number; checkpoint_size: number; extension: string }

describe('witness: our cosignatures read by torchwood and Go\'s note package', function () {
  registerLegSuite('Go', this);
  this.timeout(300_000);

  /** A checkpoint of 7 entries with `extensions`, signed by a new log key and cosigned by our witness; and a Go asker. */
  async function cosignedCheckpoint(context: Mocha.Context, extensions: string[]) {
    const built = await buildGoProgram(SOURCE, 'filippo.io/torchwood v0.6.1 and golang.org/x/mod');
    if ('why' in built) return cannotRun(context, 'Go', built.why);
    const logKey = generateKeyPairSync('ed25519').privateKey;
    const witnessKey = generateKeyPairSync('ed25519').privateKey;
    const trees = new Map<string, WitnessedTree>();
    const witness = new Witness({
      name: NAME, key: witnessKey, logs: [parseVerifierKey(verifierKey(ORIGIN, logKey))], now: () => NOW,
      store: { get: (origin) => trees.get(origin), put: async (origin, tree) => { trees.set(origin, tree); } },
    });
    const tree = new MemoryTree();
    for (let i = 0; i < 7; i += 1) tree.append(`entry-${i}`);
    const note = signNote(checkpointBody({ origin: ORIGIN, size: 7, root: tree.root(), extensions }), ORIGIN, logKey);
    const answer = await witness.addCheckpoint(`old 0\n\n${note}`);
    expect(answer.status).to.equal(200);
    const cosigned = `${note}${(answer as { cosignatures: string }).cosignatures}`;
    const ask = (text: string) => askGoProgram<GoAnswer>(built.program, {
      witness_name: NAME, witness_seed: Buffer.from(String(witnessKey.export({ format: 'jwk' }).d), 'base64url').toString('base64'),
      log_key: verifierKey(ORIGIN, logKey), note: text,
    });
    return { witness, cosigned, ask };
  }

  it('torchwood writes our witness\'s verifier key, and note.Open verifies its cosignature and the log\'s signature', async function () {
    const { witness, cosigned, ask } = await cosignedCheckpoint(this, []);
    const go = await ask(cosigned);
    expect(go).to.deep.equal({ error: '', witness_key: witness.verifierKey, verified: [ORIGIN, NAME], timestamps: [NOW], unverified: 0, checkpoint_size: 7, extension: '' });
    const altered = cosigned.replace(/(\S{10})(\S)(\S{6})\n$/, (_, a: string, c: string, b: string) => `${a}${c === 'A' ? 'B' : 'A'}${b}\n`);
    expect((await ask(altered)).error).to.match(/invalid signature/);
  });

  it('with the serial index\'s extension line: torchwood reads the line, and both signatures cover it', async function () {
    const line = indexExtension({ root: Buffer.alloc(32, 7), vrfPublicKey: Buffer.alloc(32, 9) });
    const { witness, cosigned, ask } = await cosignedCheckpoint(this, [line]);
    const go = await ask(cosigned);
    expect(go).to.deep.equal({ error: '', witness_key: witness.verifierKey, verified: [ORIGIN, NAME], timestamps: [NOW], unverified: 0, checkpoint_size: 7, extension: `${line}\n` });
    // Another index root in the line: neither the log's signature nor the witness's verifies any more.
    const otherRoot = cosigned.replace(Buffer.alloc(32, 7).toString('base64'), Buffer.alloc(32, 8).toString('base64'));
    expect(otherRoot).to.not.equal(cosigned);
    expect((await ask(otherRoot)).error).to.match(/invalid signature/);
  });
});
