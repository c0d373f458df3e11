import { createHash, generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import { InvalidConfiguration, loadConfig, projectionsNamed } from '../../shared/config/config.ts';

describe('configuration', () => {
  it('gives the documented defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config).to.include({ PORT: 3000, DATA_DIR: './data', RATE_LIMIT_PER_MINUTE: 60, VERIFY_RATE_LIMIT_PER_MINUTE: 10, TRUST_PROXY: 'false' });
    // docs/api.md, "Rate limits": the budget of verifications shared by all clients together.
    expect(config.VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE).to.equal(600);
    expect(config.PUBLIC_BASE_URL, 'no guessed address (issue 11, item 4)').to.equal(undefined);
    // Operators' ports on loopback, the public one on every interface (issue 17, finding 2).
    expect(config).to.include({ HOST: '0.0.0.0', OPS_HOST: '127.0.0.1', ADMIN_HOST: '127.0.0.1', ADMIN_AUTH_FAILURES_PER_MINUTE: 10 });
    expect(config.REDIS_URL).to.equal(undefined);
  });

  it('coerces numbers and booleans from the environment', () => {
    expect(loadConfig({ PORT: '8080', SEED_DEMO: 'false' })).to.include({ PORT: 8080, SEED_DEMO: false });
  });

  it('takes TRUST_PROXY as named proxies and refuses a bare true, with the other bad settings (issue 17, finding 4)', () => {
    expect(loadConfig({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16' })).to.include({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16' });
    expect(() => loadConfig({ TRUST_PROXY: 'true', PORT: 'abc' })).to.throw(/PORT.*TRUST_PROXY must name the trusted proxies .*\(not: true\)/);
  });

  it('says which values a setting of a few takes, once, rather than one line per value (LOG_LEVEL: pino\'s levels)', () => {
    expect(() => loadConfig({ LOG_LEVEL: 'verbose', PORT: 'abc' })).to.throw(InvalidConfiguration,
      /^invalid configuration: PORT must be integer; LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent \(not: verbose\)$/);
  });

  it('names every bad setting at once', () => {
    expect(() => loadConfig({ PORT: 'abc', RATE_LIMIT_PER_MINUTE: '0' })).to.throw(/PORT.*RATE_LIMIT_PER_MINUTE|RATE_LIMIT_PER_MINUTE.*PORT/);
  });

  it('names a bad ADMIN_API_KEYS in the same message as the other bad settings (issue 29, item 4)', () => {
    expect(() => loadConfig({ PORT: 'abc', ADMIN_API_KEYS: 'short:catalogue' }))
      .to.throw(InvalidConfiguration, /PORT must be integer; ADMIN_API_KEYS: entry 1 has a key of 5 characters/);
  });

  it('names a TRANSPARENCY_LOG_PREVIOUS_KEY that is not an Ed25519 PKCS#8 PEM with the other bad settings, and takes one that is', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    for (const bad of ['not a key', rsa]) {
      expect(() => loadConfig({ PORT: 'abc', TRANSPARENCY_LOG_PREVIOUS_KEY: bad }))
        .to.throw(InvalidConfiguration, /PORT must be integer; TRANSPARENCY_LOG_PREVIOUS_KEY is not an Ed25519 private key in PKCS#8 PEM$/);
    }
    const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    expect(loadConfig({ TRANSPARENCY_LOG_PREVIOUS_KEY: pem.replace(/\n/g, '\\n') }).TRANSPARENCY_LOG_PREVIOUS_KEY).to.be.a('string');
  });

  it('reads TRANSPARENCY_WITNESSES as "<URL> <witness verifier key>" pairs, and names a bad one with the other bad settings (issue 45)', () => {
    // A cosignature/v1 verifier key (type 0x04), from C2SP tlog-cosignature: name, key id, base64(0x04 || key).
    const raw = Buffer.from(String(generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x), 'base64url');
    const name = 'witness.example/w1';
    const id = createHash('sha256').update(`${name}\n`).update(Buffer.of(4)).update(raw).digest().subarray(0, 4).toString('hex');
    const key = `${name}+${id}+${Buffer.concat([Buffer.of(4), raw]).toString('base64')}`;
    const list = `http://127.0.0.1:7380 ${key}, https://w2.example/ ${key}`;
    expect(loadConfig({ TRANSPARENCY_WITNESSES: list }).TRANSPARENCY_WITNESSES).to.equal(list);
    expect(loadConfig({}).TRANSPARENCY_WITNESSES).to.equal('');
    const logKey = key.replace(/\+([A-Za-z0-9+/=]+)$/, () => `+${Buffer.concat([Buffer.of(1), raw]).toString('base64')}`);
    for (const bad of [key, `ftp://w.example ${key}`, `http://w.example ${logKey}`]) {
      expect(() => loadConfig({ PORT: 'abc', TRANSPARENCY_WITNESSES: bad }), bad).to.throw(InvalidConfiguration, /PORT must be integer; TRANSPARENCY_WITNESSES: /);
    }
  });

  it('gives a projector the projections PROJECTIONS names, every one when it names none, and names an unknown one with the other bad settings', () => {
    const names = (value: string) => projectionsNamed(loadConfig({ PROJECTIONS: value }).PROJECTIONS).map((projection) => projection.name);
    // The service's projections, written out here: shared/read-model/projections/index.ts.
    expect(names('')).to.deep.equal(['watches', 'collections', 'configurators', 'serials', 'transparency-log']);
    expect(names(' transparency-log ')).to.deep.equal(['transparency-log']);
    expect(names('serials, watches')).to.deep.equal(['watches', 'serials']);
    expect(() => loadConfig({ PORT: 'abc', PROJECTIONS: 'serials,orders' }))
      .to.throw(InvalidConfiguration, /PORT must be integer; PROJECTIONS: unknown projection orders \(known: watches, /);
  });

  it("takes a process kind's own default, which the environment still overrides (issue 29, item 1)", () => {
    expect(loadConfig({}, { HEALTH_PORT: 9466 }).HEALTH_PORT).to.equal(9466);
    expect(loadConfig({ HEALTH_PORT: '9470' }, { HEALTH_PORT: 9466 }).HEALTH_PORT).to.equal(9470);
    expect(loadConfig({}).HEALTH_PORT).to.equal(9465);
  });

  // Mutation survivors of issue 31. A compose file's `PORT=` or `RATE_LIMIT_PER_MINUTE=` sets an empty value.
  it('reads a setting set to the empty string as unset, so that its documented default applies', () => {
    expect(loadConfig({ PORT: '', RATE_LIMIT_PER_MINUTE: '' })).to.include({ PORT: 3000, RATE_LIMIT_PER_MINUTE: 60 });
  });

  it('names a bad setting by its bare name, not a JSON pointer', () => {
    expect(() => loadConfig({ PORT: 'abc' })).to.throw(InvalidConfiguration, /^invalid configuration: PORT must be integer$/);
  });
});
