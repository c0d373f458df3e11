/**
 * The limits every HTTP server of the service gets (public, operations and admin ports): a client must send its
 * whole request within `requestTimeoutMs` and its head within 10 s at most, or it gets 408 and its connection
 * closed, so trickled heads or bodies cannot hold connections for Node's default five minutes.
 */
import type { ServerOptions } from 'node:http';

const REQUEST_TIMEOUT_MS = 15_000;

export function serverTimeouts(requestTimeoutMs = REQUEST_TIMEOUT_MS): ServerOptions {
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout: Math.min(requestTimeoutMs, 10_000),
    connectionsCheckingInterval: Math.min(requestTimeoutMs, 1_000),
  };
}
