/**
 * Issue 29, item 4: a bad setting ends every process main the same plain way. With `PORT=abc` and a weak
 * `ADMIN_API_KEYS` together, each of the four mains exits with code 2 and writes one line naming both settings,
 * with no stack (on main at 204df55: exit 1 and an uncaught `Error` with its stack, the key checked later if at all).
 * A TRANSPARENCY_LOG_PREVIOUS_KEY that is no Ed25519 key (issue 32) is named in the same line.
 */
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { spawnTs } from '../support/child-process.ts';

const MAINS = ['main.ts', 'read-api/main.ts', 'projector/main.ts', 'services/main.ts'];

describe('bad settings at start', function () {
  this.timeout(60_000);

  for (const main of MAINS) {
    it(`${main}: exit 2, one line naming PORT, ADMIN_API_KEYS and TRANSPARENCY_LOG_PREVIOUS_KEY, no stack`, async () => {
      const child = spawnTs(fileURLToPath(new URL(`../../${main}`, import.meta.url)), [], {
        PORT: 'abc', ADMIN_API_KEYS: 'too-short:catalogue', TRANSPARENCY_LOG_PREVIOUS_KEY: 'not-a-key', LOG_LEVEL: 'info',
      });
      const code = await child.exited;
      expect(code).to.equal(2);
      expect(child.lines, child.lines.join('\n')).to.have.length(1);
      const [line] = child.lines;
      expect(line).to.match(/invalid configuration/);
      expect(line).to.match(/\bPORT\b/);
      expect(line).to.match(/ADMIN_API_KEYS: entry 1 has a key of 9 characters/);
      expect(line).to.match(/TRANSPARENCY_LOG_PREVIOUS_KEY is not an Ed25519 private key in PKCS#8 PEM/);
      expect(line).not.to.match(/too-short|not-a-key/, 'the key itself is never echoed');
      expect(line).not.to.match(/\bat \S+ \(|\.ts:\d+/, 'no stack');
    });
  }
});
