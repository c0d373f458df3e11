/**
 * Which status a verification asked with `proof=index` gives when the serial index and the registry's read model
 * disagree (docs/api.md, the `proof` parameter; docs/audit.md, "Serial index proofs"): a theft the index proves before
 * the registry applies it is answered STOLEN at once, at the position of the checkpoint's last leaf; the index behind the registry (an AUTHENTIC or NOT_FOUND the
 * registry has left, a theft the registry holds recovered since its checkpoint's last leaf, or a checkpoint whose last
 * leaf the log cannot tell) is refused, 503 with `Retry-After: 1`; no checkpoint committing the index yet is a 503
 * too. The operation alone, over a read model of one serial and an index answering what each case needs.
 */
import { expect } from 'chai';
import type { ReadView } from '../../../shared/ports/read-store.ts';
import type { SerialDoc } from '../../../shared/read-model/documents/documents.ts';
import { verifyOperation } from '../../../shared/read-model/public-api/operations/verify.operation.ts';
import type { IndexProved, OperationEnv } from '../../../shared/read-model/public-api/operations/public-operation.ts';
import type { ValidRequest } from '../../../shared/read-model/public-api/validation/request-validator.ts';
import type { IndexStatus } from '../../../shared/read-model/transparency/serial-index.ts';

const SERIAL = 'AUR-2021-000042';

function registered(status: SerialDoc['status'], position: number): SerialDoc {
  return { _id: SERIAL, serial: SERIAL, status, reference: 'AUR-1', collection: 'aurora', manufacture_year: 2021, model: { en: 'Aurora', fr: 'Aurore' }, position };
}

/** The index's answer at a checkpoint whose last leaf is the event at `through`. */
function proved(status: IndexStatus, through: number | undefined): IndexProved {
  return { answer: { serial: SERIAL, status, vrf_proof: 'vrf', index_proof: 'index' }, checkpoint: 'note', through };
}

async function verify(doc: SerialDoc | null, index: IndexProved | 'not built' | undefined, lang = 'en', withIndex = true) {
  const readStore = { get: async () => doc } as unknown as ReadView;
  const env = { readStore, now: new Date(0), ...(withIndex ? { serialIndex: async () => index } : {}) } as unknown as OperationEnv;
  const request = { path: { serial: SERIAL }, query: { lang, proof: 'index' }, header: {} } as unknown as ValidRequest;
  return verifyOperation.handle(request, env);
}

const statusOf = (answer: { status: number; body: unknown }) => (answer.body as { verification_status?: string }).verification_status;

describe('verify with proof=index: the index and the registry disagreeing', () => {
  // Answered at the checkpoint's last leaf: the position where the theft is so, which the answer's position (and the
  // tree a signed answer pins) must reach; the registry's own stands before the theft.
  it('answers a theft the index proves while the registry does not hold the serial yet (its registration and theft not applied), at the checkpoint\'s last leaf', async () => {
    const answer = await verify(null, proved('STOLEN', 9));
    expect(answer.status).to.equal(200);
    expect(statusOf(answer)).to.equal('STOLEN');
    expect(answer.dataAt).to.equal(9);
  });

  it('answers a theft the index proves while the registry holds the serial authentic as of an event the checkpoint counts, at the checkpoint\'s last leaf', async () => {
    for (const through of [5, 9]) {
      const answer = await verify(registered('authentic', 5), proved('STOLEN', through));
      expect([statusOf(answer), answer.dataAt], `checkpoint through ${through}`).to.deep.equal(['STOLEN', through]);
    }
  });

  it('refuses a theft the index proves while the registry holds an event of the serial after the checkpoint (a recovery), or cannot tell where the checkpoint ends', async () => {
    for (const doc of [registered('authentic', 5), null]) {
      for (const through of doc === null ? [undefined] : [4, undefined]) {
        const answer = await verify(doc, proved('STOLEN', through));
        expect(answer.status, `registry ${doc?.status ?? 'without the serial'}, checkpoint through ${through}`).to.equal(503);
        expect(answer.retryAfter).to.equal(1);
      }
    }
  });

  it('refuses an AUTHENTIC the index proves for a serial the registry does not hold, and a NOT_FOUND or AUTHENTIC the registry has left, wherever the checkpoint ends', async () => {
    const cases: [SerialDoc | null, IndexStatus][] = [
      [null, 'AUTHENTIC'], [registered('authentic', 5), 'NOT_FOUND'], [registered('stolen', 5), 'AUTHENTIC'], [registered('stolen', 5), 'NOT_FOUND'],
    ];
    for (const [doc, status] of cases) {
      for (const through of [4, 5, 9]) {
        const answer = await verify(doc, proved(status, through));
        expect(answer.status, `${status} proved, the registry ${doc?.status ?? 'without the serial'}, through ${through}`).to.equal(503);
        expect(answer.retryAfter).to.equal(1);
      }
    }
  });

  it('answers the status the index proves when the registry agrees, with the proof', async () => {
    const answer = await verify(registered('stolen', 5), proved('STOLEN', 4));
    expect(answer.status).to.equal(200);
    expect((answer.body as { proof?: unknown }).proof).to.deep.equal({ checkpoint: 'note', vrf_proof: 'vrf', index_proof: 'index' });
    expect(answer.dataAt, 'the registry\'s document\'s position, which the checkpoint need not reach').to.equal(5);
  });

  it('refuses while no signed checkpoint commits the index yet, and where no index is kept, in the request\'s language', async () => {
    for (const [lang, words] of [['en', 'No signed checkpoint'], ['fr', 'Aucun point de contrôle signé']] as const) {
      for (const withIndex of [true, false]) {
        const answer = await verify(registered('authentic', 5), undefined, lang, withIndex);
        expect(answer.status).to.equal(503);
        expect(answer.retryAfter).to.equal(1);
        expect((answer.body as { detail: string }).detail).to.contain(words);
      }
    }
  });
});
