/**
 * The checking commands' reads of a service (services/audit/bounded-fetch.ts) against servers that misbehave: a body
 * that never ends, one that says it is too large, one that stops sending, and through `audit log watch` a log that
 * serves an endless checkpoint. Each is refused, naming why, and the endless body is no longer downloaded once past
 * the bound (the server sees the connection closed). Real node:http servers on loopback. The files `receipt verify`
 * reads are bounded alike.
 */
import { once } from 'node:events';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { AnswerTooLargeError, fetchBounded, readFileBounded } from '../../../services/audit/bounded-fetch.ts';
import { watchcat } from '../../audit/support/watchcat-run.ts';

/** Writes 64 KiB chunks while the client reads them; resolves with how many bytes were written once it hung up. */
function endless(response: ServerResponse): Promise<number> {
  const chunk = Buffer.alloc(1 << 16, 'x');
  let written = 0;
  return new Promise((resolve) => {
    response.on('close', () => resolve(written));
    const more = () => {
      while (!response.destroyed && response.write(chunk)) written += chunk.length;
      if (!response.destroyed) {
        written += chunk.length;
        response.once('drain', more);
      }
    };
    more();
  });
}

describe('bounded reads of what a checked service serves', function () {
  this.timeout(30_000);
  let server: Server;
  let base: string;
  let handler: (path: string, response: ServerResponse) => void;
  before(async () => {
    server = createServer((request, response) => handler(request.url ?? '/', response));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('reads an answer within the bound whole, with its status', async () => {
    handler = (_path, response) => {
      response.statusCode = 404;
      response.end('a'.repeat(1000));
    };
    const answer = await fetchBounded(`${base}/x`, { maxBytes: 1000 });
    expect([answer.status, answer.ok, answer.body.toString()]).to.deep.equal([404, false, 'a'.repeat(1000)]);
    handler = (_path, response) => {
      response.statusCode = 204;
      response.end();
    };
    const empty = await fetchBounded(`${base}/none`);
    expect([empty.status, empty.ok, empty.body.length], 'an answer without a body').to.deep.equal([204, true, 0]);
  });

  it('drops a body past the bound that never ends, and downloads no more of it', async () => {
    let served: Promise<number> | undefined;
    handler = (_path, response) => {
      served = endless(response);
    };
    const maxBytes = 1 << 20;
    const refused = await fetchBounded(`${base}/endless`, { maxBytes }).then(() => undefined, (error: unknown) => error);
    expect(refused).to.be.instanceOf(AnswerTooLargeError);
    expect((refused as Error).message).to.equal(`its answer is larger than the ${maxBytes} bytes read of one`);
    // The socket's buffers aside (a few MiB at most on loopback), nothing is sent once the client hung up.
    expect(await served, 'bytes the server wrote before the client hung up').to.be.below(maxBytes + (16 << 20));
  });

  it('refuses an answer whose Content-Length is past the bound before reading it', async () => {
    handler = (_path, response) => {
      response.setHeader('Content-Length', String(10 << 20));
      response.write('x');
    };
    const refused = await fetchBounded(`${base}/large`, { maxBytes: 1 << 20 }).then(() => undefined, (error: unknown) => error);
    expect(refused).to.be.instanceOf(AnswerTooLargeError);
  });

  it('gives up on a body that stops coming, past its deadline', async () => {
    handler = (_path, response) => {
      response.setHeader('Content-Length', '100');
      response.write('x');
    };
    const started = performance.now();
    const refused = await fetchBounded(`${base}/stalled`, { timeoutMs: 300 }).then(() => undefined, (error: unknown) => error);
    expect((refused as Error).name).to.equal('TimeoutError');
    expect(performance.now() - started, 'not before its deadline').to.be.at.least(290);
  });

  it('audit log watch: a log serving an endless key is refused with the reason, not read until memory runs out', async () => {
    let served: Promise<number> | undefined;
    handler = (_path, response) => {
      served = endless(response);
    };
    const dir = mkdtempSync(join(tmpdir(), 'watchcat-bounded-'));
    const result = await watchcat({}, 'audit', 'log', 'watch', base, '--once', '--state', join(dir, 'watch.json'));
    rmSync(dir, { recursive: true, force: true });
    expect(result.code).to.equal(1);
    expect(result.notes.join('\n')).to.contain(`cannot reach ${base}/.well-known/transparency/key: its answer is larger than the ${1 << 20} bytes read of one`);
    await served;
  });

  describe('files', () => {
    let dir: string;
    beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'watchcat-bounded-')); });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('reads a file of the bound whole, and refuses one a byte larger', async () => {
      const file = join(dir, 'f');
      const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
      writeFileSync(file, bytes);
      expect((await readFileBounded(file, 1000)).equals(bytes)).to.equal(true);
      expect((await readFileBounded(file, 1001)).equals(bytes)).to.equal(true);
      const refused = await readFileBounded(file, 999).then(() => undefined, (error: unknown) => error);
      expect(refused).to.be.instanceOf(AnswerTooLargeError);
      writeFileSync(join(dir, 'empty'), '');
      expect((await readFileBounded(join(dir, 'empty'), 1000)).length).to.equal(0);
    });

    it('reads a pipe that sends its bytes a little at a time to its end, and refuses one that sends a byte past the bound', async () => {
      for (const size of [1000, 1001]) {
        const fifo = join(dir, `fifo-${size}`);
        execFileSync('mkfifo', [fifo]);
        const bytes = Buffer.from(Array.from({ length: size }, (_, i) => i % 251));
        const writing = (async () => {
          const pipe = await open(fifo, 'w');
          for (let at = 0; at < size; at += 250) {
            await pipe.write(bytes.subarray(at, at + 250));
            await sleep(5);
          }
          await pipe.close();
        })();
        const read = await readFileBounded(fifo, 1000).then((got) => got, (error: unknown) => error);
        await writing;
        if (size === 1000) expect(Buffer.isBuffer(read) && read.equals(bytes), 'every chunk, to the end').to.equal(true);
        else expect(read, 'a byte past the bound').to.be.instanceOf(AnswerTooLargeError);
      }
    });

    it('closes every file it opened', async () => {
      const file = join(dir, 'f');
      writeFileSync(file, 'x');
      const openFiles = () => readdirSync('/proc/self/fd').length;
      const before = openFiles();
      for (let read = 0; read < 20; read += 1) await readFileBounded(file, 10);
      expect(openFiles()).to.equal(before);
    });

    it('receipt verify: /dev/zero given as the receipt, or as the key set, is refused with the reason, not read until memory runs out', async () => {
      const receipt = await watchcat({}, 'receipt', 'verify', '/dev/zero', '--jwks', '/dev/zero');
      expect(receipt.code).to.equal(1);
      expect(receipt.notes.join('\n')).to.contain(`cannot read the receipt /dev/zero: it is larger than the ${1 << 20} bytes read of one`);
      const answer = join(dir, 'answer.txt');
      writeFileSync(answer, 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n{}');
      const keys = await watchcat({}, 'receipt', 'verify', answer, '--jwks', '/dev/zero');
      expect(keys.code).to.equal(1);
      expect(keys.notes.join('\n')).to.contain(`cannot read the key set /dev/zero: it is larger than the ${1 << 20} bytes read of one`);
    });
  });
});
