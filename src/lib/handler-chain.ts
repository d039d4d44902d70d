import type { MiddlewareHandler } from 'hono';
import type { AppBindings } from '../env';
import { onError } from './errors';

/**
 * Runs `handlers` as Hono's compose does (an error becomes onError's answer where it is thrown, so the handlers
 * before it see an answer, not an exception), without setting the context's route index: the parameters the
 * handlers read are those of the route the caller matched (the same path).
 */
export function inOrder(handlers: readonly MiddlewareHandler<AppBindings>[]): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    const run = async (i: number): Promise<void> => {
      const handler = handlers[i];
      if (!handler) return next();
      let res: Response | void;
      let isError = false;
      try {
        res = await handler(c, () => run(i + 1));
      } catch (err) {
        if (!(err instanceof Error)) throw err;
        c.error = err;
        res = await onError(err, c);
        isError = true;
      }
      if (res && (!c.finalized || isError)) c.res = res;
    };
    await run(0);
  };
}
