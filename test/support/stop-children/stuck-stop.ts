/** A process whose stop never ends: `onShutdownSignal` must still exit it once its deadline (argv[2] ms) passes. */
import { createLogger } from '../../../shared/logging/logger.ts';
import { onShutdownSignal } from '../../../shared/process/shutdown.ts';

const deadlineMs = Number(process.argv[2]);
onShutdownSignal(createLogger('silent', 'stuck'), 'stuck', () => new Promise<void>(() => {}), deadlineMs);
// Something keeps the event loop busy, as open servers and queues would.
setInterval(() => {}, 1_000);
console.log('READY');
