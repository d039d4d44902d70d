/**
 * The Worker as the benchmark serves it: the real one, which also answers how many D1 round trips a
 * request took (`x-d1-round-trips`) when asked with `x-count-d1: 1`. Unasked, requests go straight through.
 */
import worker, { SpaceWriter } from '../../src/index';
import type { Env } from '../../src/env';
import { countingD1 } from '../helpers/counting-d1';

export { SpaceWriter };

export default {
  ...worker,
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    if (request.headers.get('x-count-d1') !== '1') return worker.fetch!(request as never, env, ctx);
    const counter = countingD1(env.DB);
    const response = await worker.fetch!(request as never, { ...env, DB: counter.db }, ctx);
    const counted = new Response(response.body, response);
    counted.headers.set('x-d1-round-trips', String(counter.count));
    return counted;
  },
} satisfies ExportedHandler<Env>;
