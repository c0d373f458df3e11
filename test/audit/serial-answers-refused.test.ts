/**
 * `watchcat state-at --what serials` lists the verification of every serial the registry held then. A serial whose
 * stream holds an event of a type this version does not know is refused (503) by the verification, whose body names
 * no serial (docs/api.md, "Honest answers"): the list gives it with the serial it refuses, so that an auditor can tell
 * which serials the registry could not answer for (docs/audit.md).
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { loadConfig } from '../../shared/config/config.ts';
import type { SerialDoc, UnreadableSerialDoc } from '../../shared/read-model/documents/documents.ts';
import { frozenEnv, serialAnswers } from '../../services/audit/public-answers.ts';

describe('state-at\'s list of serials', () => {
  it('gives a serial the verification refuses with that serial, beside the answers of the others', async () => {
    const store = createMemoryReadStore();
    const registered = (serial: string, position: number, unreadableFrom?: number): SerialDoc => ({
      _id: serial, serial, status: 'authentic', reference: 'RG-1', collection: 'regate', manufacture_year: 2024,
      model: { en: 'Régate', fr: 'Régate' }, position, ...(unreadableFrom === undefined ? {} : { unreadable_from: unreadableFrom }),
    });
    const neverRegistered: UnreadableSerialDoc = { _id: 'SN-0003', serial: 'SN-0003', unreadable_from: 9, position: 9 };
    await store.write('serials', [{ put: registered('SN-0001', 3, 8) }, { put: registered('SN-0002', 4) }, { put: neverRegistered }]);
    const answers = await serialAnswers(frozenEnv(store, loadConfig({}), 9, new Date('2026-01-01T00:00:00Z')), 'en') as Record<string, unknown>[];
    expect(answers.map((answer) => answer['serial'])).to.deep.equal(['SN-0001', 'SN-0002', 'SN-0003']);
    expect(answers[1]).to.include({ verification_status: 'AUTHENTIC' });
    for (const refused of [answers[0], answers[2]]) {
      expect(refused).to.have.all.keys('serial', 'detail');
      expect(refused!['detail']).to.contain('cannot read');
    }
  });
});
