/**
 * Logs argv[2] lines through `createLogger` as fast as it can, says READY on stdout, then ends as argv[3] says:
 * `stop` waits for SIGTERM (a graceful stop through `onShutdownSignal`), `throw` throws an uncaught error at once.
 */
import { createLogger } from '../../../shared/logging/logger.ts';
import { onShutdownSignal } from '../../../shared/process/shutdown.ts';

const [count, end] = [Number(process.argv[2]), process.argv[3]];
const logger = createLogger('info', 'log-lines');
onShutdownSignal(logger, 'log-lines', async () => {});
for (let index = 0; index < count; index += 1) logger.info({ index }, 'line');
console.log('READY');
if (end === 'throw') throw new Error('a fatal error after the lines');
setInterval(() => {}, 1_000);
