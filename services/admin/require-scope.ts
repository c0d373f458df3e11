/**
 * Who may call an operator route: a key of `ADMIN_API_KEYS` with the route's scope. A client that failed too often
 * within a minute is answered 429 before its key is even looked at; every failure is counted.
 */
import type { Context, Next } from 'koa';
import type { Config } from '../../shared/config/config.ts';
import { limitKey, normalizeIp } from '../../shared/net/ip-address.ts';
import { parseApiKeys, presentedKey, type AdminScope, type ApiKeyRing } from './api-keys.ts';
import { authThrottle, type AuthThrottle } from './auth-throttle.ts';
import type { CommandOptions } from '../write/command-service.ts';
import { HttpError } from './json-body.ts';

/** Set by `requireScope`: who the events will name as actor, and the request's correlation id. */
export interface AdminState {
  commandOptions: CommandOptions;
}

/** Told of every failed authentication: `refused` (401: no or unknown key) or `throttled` (429, key not checked). */
export interface AuthFailureMetrics {
  failed(outcome: 'refused' | 'throttled'): void;
}

export interface AdminAuth {
  keys: ApiKeyRing;
  throttle: AuthThrottle;
  metrics?: AuthFailureMetrics;
}

export function requireScope(auth: AdminAuth, scope: AdminScope) {
  return async (ctx: Context, next: Next) => {
    // The admin port is not behind our proxies: the socket peer is the client (IPv6 by /64).
    const client = limitKey(normalizeIp(ctx.req.socket.remoteAddress ?? '') ?? 'unknown');
    const wait = auth.throttle.retryAfter(client);
    if (wait > 0) {
      auth.metrics?.failed('throttled');
      ctx.set('Retry-After', String(wait));
      throw new HttpError(429, 'too many failed authentications: try again later');
    }
    const identity = auth.keys.identify(presentedKey(ctx.headers));
    if (!identity) {
      auth.throttle.failed(client);
      auth.metrics?.failed('refused');
      ctx.set('WWW-Authenticate', 'Bearer');
      throw new HttpError(401, 'a valid API key is required (Authorization: Bearer KEY or X-API-Key)');
    }
    if (!identity.scopes.has(scope)) throw new HttpError(403, `this API key lacks the ${scope} scope`);
    const requestId = ctx.get('X-Request-Id');
    (ctx.state as AdminState).commandOptions = {
      actor: `admin-api:${identity.keyId}`,
      ...(/^[\w.-]{1,100}$/.test(requestId) ? { correlationId: requestId } : {}),
    };
    await next();
  };
}

/** The keys and the failure throttle of one server, from the configuration. */
export function adminAuth(config: Pick<Config, 'ADMIN_API_KEYS' | 'ADMIN_AUTH_FAILURES_PER_MINUTE'>, metrics?: AuthFailureMetrics): AdminAuth {
  return { keys: parseApiKeys(config.ADMIN_API_KEYS), throttle: authThrottle(config.ADMIN_AUTH_FAILURES_PER_MINUTE), ...(metrics ? { metrics } : {}) };
}
