/**
 * C2SP tlog-policy (docs/audit.md, "Witness policy"): the file's rules, each refusal naming its line, and the quorum
 * judged over a checkpoint's cosignatures: k of n, `all`, `any`, groups of groups (the specification's example),
 * `quorum none`. The cosignatures are made here from C2SP tlog-cosignature with node:crypto, not by the code under
 * test; a line by a key the policy does not list, or that does not verify, counts for nothing. Whether two disjoint
 * sets of witnesses can each meet the quorum (then two checkpoints of one size may each meet it, seen by different
 * witnesses): not for 2 of 3, nor the example; yes for any of 2, 2 of 4, `quorum none`, and for groups sharing a witness.
 */
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { expect } from 'chai';
import { checkpointBody } from '../../../shared/read-model/transparency/checkpoint.ts';
import { signNote } from '../../../shared/read-model/transparency/signed-note.ts';
import { disjointQuorums, judgeNote, parsePolicy, PolicyError, requirePolicy } from '../../../shared/read-model/transparency/tlog-policy.ts';
import { specVerifierKey } from '../../support/note-keys.ts';

const ORIGIN = 'watch.example/watchcat/events';
const rawOf = (key: KeyObject) => Buffer.from(String(key.export({ format: 'jwk' }).x), 'base64url');
const idOf = (name: string, raw: Buffer) => createHash('sha256').update(`${name}\n`).update(Buffer.of(4)).update(raw).digest().subarray(0, 4);

/** A witness: its cosigner verifier key (type 0x04) and the line it signs over a checkpoint body. */
function witness(name: string) {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = rawOf(publicKey);
  return {
    name,
    vkey: `${name}+${idOf(name, raw).toString('hex')}+${Buffer.concat([Buffer.of(4), raw]).toString('base64')}`,
    cosign: (body: string, time = 1_700_000_000) => {
      const stamp = Buffer.alloc(8);
      stamp.writeBigUInt64BE(BigInt(time));
      const signature = sign(null, Buffer.from(`cosignature/v1\ntime ${time}\n${body}`), privateKey);
      return `\u2014 ${name} ${Buffer.concat([idOf(name, raw), stamp, signature]).toString('base64')}\n`;
    },
  };
}

describe('witness policy (C2SP tlog-policy): the file and the quorum', () => {
  const logKey = generateKeyPairSync('ed25519').privateKey;
  const body = checkpointBody({ origin: ORIGIN, size: 9, root: Buffer.alloc(32, 3) });
  const note = signNote(body, ORIGIN, logKey);
  const [x1, x2, x3, y1, y2] = ['x.example/1', 'x.example/2', 'x.example/3', 'y.example/1', 'y.example/2'].map(witness);
  const spec = `# the specification's example, two organisations
log ${specVerifierKey(ORIGIN, logKey)} https://watch.example/transparency

witness X1 ${x1!.vkey}
witness X2 ${x2!.vkey} http://127.0.0.1:7380
witness X3 ${x3!.vkey}
group X-witnesses 2 X1 X2 X3
\twitness Y1   ${y1!.vkey}
witness Y2 ${y2!.vkey}
group Y-witnesses any Y1 Y2
group X-and-Y all X-witnesses Y-witnesses
quorum X-and-Y
`;
  const policy = parsePolicy(spec);
  const cosigned = (...by: Array<ReturnType<typeof witness>>) => `${note}${by.map((w) => w.cosign(body)).join('')}`;

  it('holds the quorum with 2 of the X witnesses and any Y witness, and not with fewer of either', () => {
    expect(judgeNote(policy, cosigned(x1!, x3!, y2!))).to.deep.equal({ logSigned: true, signedBy: [ORIGIN], cosigners: ['X1', 'X3', 'Y2'], quorum: true });
    expect(judgeNote(policy, cosigned(x1!, x2!, x3!)).quorum, 'no Y witness').to.equal(false);
    expect(judgeNote(policy, cosigned(x2!, y1!, y2!)).quorum, 'one X witness').to.equal(false);
    expect(judgeNote(policy, note)).to.deep.equal({ logSigned: true, signedBy: [ORIGIN], cosigners: [], quorum: false });
  });

  it('counts no cosignature by a key it does not list, nor one that does not verify, nor one over another checkpoint', () => {
    const stranger = witness('x.example/1');
    const other = checkpointBody({ origin: ORIGIN, size: 10, root: Buffer.alloc(32, 3) });
    const line = x2!.cosign(body);
    const tampered = line.replace(/(\S{6})(\S)(\S{4})\n$/, (_, a: string, c: string, b: string) => `${a}${c === 'A' ? 'B' : 'A'}${b}\n`);
    expect(judgeNote(policy, `${note}${stranger.cosign(body)}${tampered}${x3!.cosign(other)}${y1!.cosign(body)}`).cosigners).to.deep.equal(['Y1']);
  });

  it('refuses a checkpoint no log of the policy signed, and says what the quorum lacks', () => {
    const otherLog = signNote(body, ORIGIN, generateKeyPairSync('ed25519').privateKey);
    expect(judgeNote(policy, `${otherLog}${x1!.cosign(body)}${x2!.cosign(body)}${y1!.cosign(body)}`)).to.include({ logSigned: false }).and.to.deep.include({ signedBy: [] });
    expect(() => requirePolicy(policy, `${otherLog}${x1!.cosign(body)}`)).to.throw(PolicyError, 'signed by no log of the witness policy');
    expect(() => requirePolicy(policy, cosigned(x1!, y1!))).to.throw(PolicyError, 'does not meet the witness policy\'s quorum (X-and-Y): cosigned by X1, Y1');
    expect(requirePolicy(policy, cosigned(x1!, x2!, y1!)).cosigners).to.deep.equal(['X1', 'X2', 'Y1']);
  });

  it('asks nothing of the witnesses under `quorum none`, and leaves the log to the caller when it lists none', () => {
    expect(judgeNote(parsePolicy('quorum none\n'), note)).to.deep.equal({ logSigned: true, signedBy: [], cosigners: [], quorum: true });
    expect(judgeNote(parsePolicy(`witness A ${x1!.vkey}\nquorum A\n`), cosigned(x1!)).quorum).to.equal(true);
  });

  it('refuses a file that breaks a rule of the specification, naming the line', () => {
    const w = `witness A ${x1!.vkey}\n`;
    const refusals: Array<[string, RegExp]> = [
      ['', /no quorum line/],
      [`${w}quorum B\n`, /line 2: B is not a witness or group defined above/],
      [`group G any A\n${w}quorum G\n`, /line 1: A is not a witness or group defined above/],
      [`${w}group G any A A\nquorum G\n`, /line 2: a member is listed twice/],
      [`${w}group G 2 A\nquorum G\n`, /line 2: the threshold must be all, any or a number from 1 to 1/],
      [`${w}group G 0 A\nquorum G\n`, /line 2: the threshold/],
      [`${w}witness B ${x1!.vkey.replace('x.example/1', 'x.example/1')}\nquorum A\n`, /line 2: this public key is already listed/],
      [`${w}witness A ${x2!.vkey}\nquorum A\n`, /line 2: the name A is defined already/],
      [`witness none ${x1!.vkey}\nquorum none\n`, /line 1: the name none is reserved/],
      [`${w}quorum A\nquorum A\n`, /line 3: a second quorum line/],
      [`witness A ${specVerifierKey(ORIGIN, logKey)}\nquorum none\n`, /line 1: not a verifier key/],
      [`log ${x1!.vkey}\nquorum none\n`, /line 1: not a verifier key/],
      [`${w}quorum A\x0b\n`, /line 2: a control character/],
      [`witness A\nquorum none\n`, /line 1: expected log/],
    ];
    for (const [text, reason] of refusals) expect(() => parsePolicy(text), JSON.stringify(text)).to.throw(PolicyError, reason);
  });

  it('finds two disjoint sets of witnesses that each meet the quorum, when there are', () => {
    const keys = [x1!, x2!, x3!, y1!, y2!].map((w, i) => `witness W${i + 1} ${w.vkey}`).join('\n');
    const of = (rest: string) => disjointQuorums(parsePolicy(`${keys}\n${rest}\n`));
    expect(of('quorum W1')).to.equal(undefined);
    expect(of('group g 2 W1 W2 W3\nquorum g')).to.equal(undefined);
    expect(disjointQuorums(policy), 'the specification\'s example').to.equal(undefined);
    expect(of('group g any W1 W2\nquorum g')).to.deep.equal([['W1'], ['W2']]);
    expect(of('group g 2 W1 W2 W3 W4\nquorum g')).to.deep.equal([['W1', 'W2'], ['W3', 'W4']]);
    expect(of('quorum none')).to.deep.equal([[], []]);
    // W3 in both groups: alone it meets both, so {W3} and {W1, W4} are two disjoint quorums.
    expect(of('group g1 any W1 W3\ngroup g2 any W3 W4\ngroup q all g1 g2\nquorum q')).to.deep.equal([['W1', 'W4'], ['W3']]);
  });
});
