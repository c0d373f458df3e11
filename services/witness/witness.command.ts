/**
 * `watchcat witness --name NAME --log VKEY... [--state FILE] [--key FILE] [--new-state] [--host HOST] [--port PORT]
 * [--print-key]`: runs a C2SP tlog-witness (witness.ts) for the logs whose verifier keys it is given, until SIGINT or
 * SIGTERM. It prints its own verifier key (the `cosignature/v1` kind, which a log's WITNESSES setting and a policy
 * file name it by) and the address it listens on; `--print-key` prints the key and stops. Its key and state default
 * to files under `DATA_DIR/witness/`; a key it generates gets its state at once, and an existing key without a state
 * starts only with `--new-state` (witness-state-file.ts says why).
 */
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { listen } from '../../shared/http/listen.ts';
import { serverTimeouts } from '../../shared/http/server-timeouts.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { cosignerKey } from '../../shared/read-model/transparency/cosignature.ts';
import { NoteError, parseVerifierKey, type Verifier } from '../../shared/read-model/transparency/signed-note.ts';
import type { CliContext } from '../cli/cli-context.ts';
import { Witness, WitnessError } from './witness.ts';
import { witnessApp } from './witness-app.ts';
import { loadWitnessKey } from './witness-key.ts';
import { openWitnessState } from './witness-state-file.ts';

interface WitnessOptions {
  name: string;
  log: Verifier[];
  state?: string;
  key?: string;
  newState?: boolean;
  host: string;
  port: number;
  printKey?: boolean;
}

function logKey(value: string, previous: Verifier[] = []): Verifier[] {
  try {
    return [...previous, parseVerifierKey(value)];
  } catch (error) {
    throw new InvalidArgumentError((error as NoteError).message);
  }
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('expected a port number from 0 to 65535');
  return n;
}

async function runWitness(context: CliContext, options: WitnessOptions): Promise<void> {
  const dir = join(context.config().DATA_DIR, 'witness');
  if (!options.printKey && options.log.length === 0) throw new WitnessError('give the verifier key of at least one log with --log');
  const { key, generated } = await loadWitnessKey(options.key ?? join(dir, 'witness-key.pem'));
  const stateFile = options.state ?? join(dir, 'state.json');
  const newState = options.newState ? 'required' : generated ? 'allowed' : 'refused';
  if (options.printKey) {
    // A key generated here gets its state now: started later, it would be a key without one.
    if (newState !== 'refused') await (await openWitnessState(stateFile, { key, newState })).close();
    context.out(cosignerKey(options.name, key));
    return;
  }
  const state = await openWitnessState(stateFile, { key, newState });
  try {
    const witness = new Witness({ name: options.name, key, logs: options.log, store: state });
    const logger = createLogger(context.config().LOG_LEVEL, 'witness');
    const answer = witnessApp(witness, logger).callback();
    let stopping = false;
    const answering = new Set<ServerResponse>();
    const server = createServer(serverTimeouts(), (request, response) => {
      if (stopping) {
        // A request on a connection kept alive: refused, and the connection closed, so that the stop ends.
        response.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' }).end('the witness is stopping\n');
        return;
      }
      answering.add(response);
      response.once('close', () => answering.delete(response));
      void answer(request, response);
    });
    const bound = await listen(server, options.port, options.host, '--port');
    context.out(`witness ${options.name}: verifier key ${witness.verifierKey}`);
    context.out(`witness ${options.name}: listening on http://${options.host}:${bound} for ${witness.origins().join(', ')}`);
    await new Promise<void>((resolve) => {
      // Listened to once: a second signal, while the stop waits, ends the process as a crash would (the state
      // survives one).
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    // No new request; those under way are answered, each once its tree is stored (at most the request timeout of
    // shared/http/server-timeouts.ts for one still being sent), before the state lets go of its lock.
    stopping = true;
    const closed = once(server, 'close');
    server.close();
    await Promise.all([...answering].map((response) => once(response, 'close')));
    server.closeAllConnections();
    await closed;
  } finally {
    await state.close();
  }
}

export function witnessCommand(program: Command, context: CliContext): void {
  program.command('witness')
    .description('run a C2SP tlog-witness for the logs given: cosign each checkpoint that extends the last one it cosigned (docs/audit.md, "Witnesses")')
    .requiredOption('--name <name>', 'the witness\'s name, as its cosignature lines carry it (a schema-less URL, e.g. witness.example/w1)')
    .option('--log <vkey>', 'the verifier key of a log to witness, as /.well-known/transparency/key serves it (repeat for several logs or keys)', logKey)
    .option('--state <file>', 'where the trees cosigned are kept (default: DATA_DIR/witness/state.json)')
    .option('--key <file>', 'the witness\'s Ed25519 private key, PKCS#8 PEM, generated when absent (default: DATA_DIR/witness/witness-key.pem)')
    .option('--new-state', 'start an empty state for an existing key that has none (safe only if the key never cosigned: it forgets what it cosigned); refused when the state exists')
    .option('--host <host>', 'the address to listen on', '127.0.0.1')
    .option('--port <port>', 'the port to listen on', port, 7380)
    .option('--print-key', 'print the witness\'s verifier key and stop')
    .action((options: Omit<WitnessOptions, 'log'> & { log?: Verifier[] }) => runWitness(context, { ...options, log: options.log ?? [] }));
}
