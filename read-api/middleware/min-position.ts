/**
 * `X-Min-Position` on the public routes that are not operations (docs/api.md, "Read your writes"): the discovery
 * files, /docs, the demo's images, the log's keys and tiles. None of their answers is read at a position, so a valid
 * value has nothing to wait for; one that is not canonical digits is the contract's 422, as on every operation
 * (whose own validation checks it with their other parameters, listed in FastAPI's order). A request without the
 * header pays one lookup.
 */
import type { Middleware } from 'koa';
import { checkedMinPosition } from '../../shared/read-model/public-api/validation/request-validator.ts';

export const minPositionChecked: Middleware = (ctx, next) => {
  checkedMinPosition(ctx.req.headers);
  return next();
};
