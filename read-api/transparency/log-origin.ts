/**
 * The transparency log's origin as a process that signs checkpoints takes it from its settings: the host of
 * `PUBLIC_BASE_URL` (docs/api.md, "Transparency log"). A monitor knows a log by its origin and a checkpoint's key by
 * the origin as its name, so an origin that names no public address (none set, `localhost`, a loopback address)
 * makes a log nobody else can tell from another one: the process says so at start, in one line.
 */
import type { Config } from '../../shared/config/config.ts';
import type { Logger } from '../../shared/logging/logger.ts';
import { logOrigin } from '../../shared/read-model/transparency/checkpoint.ts';

/** Whether an origin's host is this machine's own name for itself rather than a public one. */
function isLocalOrigin(origin: string): boolean {
  const host = origin.split('/')[0]!.replace(/:\d+$/, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host) || host === '[::1]';
}

const localOriginWarning = (origin: string) => `the transparency log's origin is ${origin}, which names no `
  + 'public address: set PUBLIC_BASE_URL to the address the public reaches before the log is published, since '
  + 'monitors know a log by its origin and a checkpoint signed under one origin is not of a log under another';

/** The origin this process signs checkpoints under; warns once when it is local. */
export function transparencyLogOrigin(config: Pick<Config, 'PUBLIC_BASE_URL'>, logger: Logger): string {
  const origin = logOrigin(config.PUBLIC_BASE_URL);
  if (isLocalOrigin(origin)) logger.warn({ origin }, localOriginWarning(origin));
  return origin;
}
