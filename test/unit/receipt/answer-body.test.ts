/**
 * What a saved answer's body says of itself (services/audit/receipt/answer-body.ts): the MCP tool call it answers,
 * and the serial index proof a `proof=index` verification carries, as the offline file `watchcat receipt verify`
 * reads. A body that names them only in part names nothing: a name that is no text is no call, and a proof with a
 * field missing (or of another kind) is no index proof, which the command would otherwise check and refuse.
 */
import { expect } from 'chai';
import { answeredCall, indexProofOfAnswer } from '../../../services/audit/receipt/answer-body.ts';
import { INDEX_PROOF_HEADER } from '../../../services/audit/receipt/index-proof.ts';

const body = (value: unknown) => Buffer.from(JSON.stringify(value));
const rpc = (result: unknown) => body({ jsonrpc: '2.0', id: 1, result });

const PROOF = { checkpoint: 'watch.example/log\n5\nROOT=\n\n— sig\n', vrf_proof: 'VRF=', index_proof: 'INDEX=' };
const VERIFICATION = { serial: 'AUR-0001', verification_status: 'STOLEN', proof: PROOF };
/** The offline file, written out here as docs/audit.md ("Serial index proofs") lays it out. */
const FILE = `${INDEX_PROOF_HEADER}\nserial AUR-0001\nstatus STOLEN\nvrf VRF=\nindex INDEX=\n\n${PROOF.checkpoint}`;

describe('what a saved answer\'s body says of itself', () => {
  it('names the tool call an MCP result answers, only when its name is text and its arguments an object', () => {
    const call = { name: 'verify_serial', arguments: { serial: 'AUR-0001', lang: 'en' } };
    expect(answeredCall(rpc({ _meta: { call } }))).to.equal('verify_serial {"serial":"AUR-0001","lang":"en"}');
    expect(answeredCall(rpc({ _meta: { call: { ...call, name: 7 } } })), 'a name that is no text').to.equal(undefined);
    expect(answeredCall(rpc({ _meta: { call: { ...call, arguments: 'serial=AUR-0001' } } })), 'arguments that are no object').to.equal(undefined);
    expect(answeredCall(rpc({ _meta: {} })), 'no call').to.equal(undefined);
    expect(answeredCall(body(VERIFICATION)), 'an HTTP answer').to.equal(undefined);
    expect(answeredCall(Buffer.from('not json {')), 'no JSON').to.equal(undefined);
  });

  it('gives the index proof a verification carries, over HTTP or as an MCP result\'s structured content', () => {
    expect(indexProofOfAnswer(body(VERIFICATION))).to.equal(FILE);
    expect(indexProofOfAnswer(rpc({ structuredContent: VERIFICATION, _meta: {} }))).to.equal(FILE);
  });

  it('gives none for a verification whose proof lacks a field of the index proof, has one that is no text, or is absent', () => {
    for (const field of ['checkpoint', 'vrf_proof', 'index_proof'] as const) {
      const { [field]: _left, ...rest } = PROOF;
      expect(indexProofOfAnswer(body({ ...VERIFICATION, proof: rest })), `without ${field}`).to.equal(undefined);
      expect(indexProofOfAnswer(body({ ...VERIFICATION, proof: { ...PROOF, [field]: 5 } })), `${field} a number`).to.equal(undefined);
    }
    expect(indexProofOfAnswer(body({ ...VERIFICATION, serial: 5 })), 'a serial that is no text').to.equal(undefined);
    expect(indexProofOfAnswer(body({ serial: 'AUR-0001', proof: PROOF })), 'no status').to.equal(undefined);
    expect(indexProofOfAnswer(body({ serial: 'AUR-0001', verification_status: 'AUTHENTIC' })), 'no proof').to.equal(undefined);
    expect(indexProofOfAnswer(Buffer.from('not json {')), 'no JSON').to.equal(undefined);
  });
});
