/**
 * A process main's configuration (`shared/config/load-or-exit.ts`) in this process, with a stand-in for the
 * process's environment, stderr and exit: a bad setting ends it with one line naming the process and every bad
 * setting, and exit code 2; a good one is the configuration with DATA_DIR read from the project root.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { BAD_CONFIGURATION_EXIT_CODE, loadConfigOrExit, type ConfigHost } from '../../../shared/config/load-or-exit.ts';

/** This checkout's root, three folders above this file (where watchcat's package.json is). */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

class Exited extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

function host(env: NodeJS.ProcessEnv): ConfigHost & { written: string[] } {
  const written: string[] = [];
  return {
    env, written,
    stderr: { write: (text: string) => written.push(text) },
    exit: (code: number): never => { throw new Exited(code); },
  };
}

describe('a process main\'s configuration (loadConfigOrExit)', () => {
  it('ends the process with code 2 and one stderr line naming the process and every bad setting', () => {
    expect(BAD_CONFIGURATION_EXIT_CODE).to.equal(2);
    const stand = host({ PORT: 'abc', RATE_LIMIT_PER_MINUTE: '0' });
    let exited: unknown;
    try {
      loadConfigOrExit('read-api', {}, stand);
    } catch (error) {
      exited = error;
    }
    expect(exited).to.be.instanceOf(Exited);
    expect((exited as Exited).code).to.equal(2);
    expect(stand.written).to.have.length(1);
    expect(stand.written[0]).to.match(/^read-api: invalid configuration: .*PORT.*; .*RATE_LIMIT_PER_MINUTE.*\n$/);
    expect(stand.written[0]!.split('\n')).to.have.length(2);
  });

  it('reads the environment it is given, with the process kind\'s defaults, and DATA_DIR from the project root', () => {
    const stand = host({ RATE_LIMIT_PER_MINUTE: '7' });
    const config = loadConfigOrExit('projector', { HEALTH_PORT: 9466 }, stand);
    expect(config.RATE_LIMIT_PER_MINUTE).to.equal(7);
    expect(config.HEALTH_PORT).to.equal(9466);
    expect(config.DATA_DIR).to.equal(join(ROOT, 'data'));
    expect(stand.written).to.deep.equal([]);
    expect(loadConfigOrExit('watchcat', {}, host({ DATA_DIR: '/srv/watchcat' })).DATA_DIR).to.equal('/srv/watchcat');
  });

  it('lets an error other than a bad setting through, without writing or exiting', () => {
    const stand = host({});
    Object.defineProperty(stand.env, 'PORT', { get: () => { throw new RangeError('unreadable'); }, enumerable: true });
    expect(() => loadConfigOrExit('read-api', {}, stand)).to.throw(RangeError, 'unreadable');
    expect(stand.written).to.deep.equal([]);
  });
});
