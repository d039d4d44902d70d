import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../env';
import { ApiError } from '../lib/errors';
import type { ContentChange } from '../services/content-batch';
import {
  applyChangeRequestContent,
  mergeChangeRequest,
  updateChangeRequest,
  type ChangeRequestTarget,
  type ContentBatchOutput,
  type HeadMoveOutput,
} from '../services/head-moves';

/** What crosses the RPC boundary: a value, or the API error to answer with (classes do not survive RPC). */
export type WriterResult<T> = { ok: true; value: T } | { ok: false; status: number; message: string };

/**
 * One instance per space (idFromName(spaceId)). Everything that moves a space's or change request's
 * head goes through it. D1 calls are not Durable Object storage, so the input gate does not hold
 * other requests while they wait: an explicit queue runs one head move at a time, each reading the
 * heads it builds on. Every write is also a compare-and-set on D1, which no other writer can slip past.
 */
export class SpaceWriter extends DurableObject<Env> {
  private tail: Promise<unknown> = Promise.resolve();

  private serialize<T>(work: () => Promise<T>): Promise<WriterResult<T>> {
    const run = this.tail.then(async (): Promise<WriterResult<T>> => {
      try {
        return { ok: true, value: await work() };
      } catch (error) {
        if (error instanceof ApiError) return { ok: false, status: error.status, message: error.message };
        throw error;
      }
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  applyContent(target: ChangeRequestTarget, changes: ContentChange[]): Promise<WriterResult<ContentBatchOutput>> {
    return this.serialize(() => applyChangeRequestContent(this.env, target, changes));
  }

  merge(target: ChangeRequestTarget): Promise<WriterResult<HeadMoveOutput>> {
    return this.serialize(() => mergeChangeRequest(this.env, target));
  }

  update(target: ChangeRequestTarget): Promise<WriterResult<HeadMoveOutput>> {
    return this.serialize(() => updateChangeRequest(this.env, target));
  }
}

export function spaceWriter(env: Env, spaceId: string) {
  return env.SPACE_WRITER.get(env.SPACE_WRITER.idFromName(spaceId));
}

/** Runs a head move in the space's writer and turns a refusal back into the API error. */
export async function throughWriter<T>(call: Promise<WriterResult<T>>): Promise<T> {
  const result = await call;
  if (!result.ok) throw new ApiError(result.status as ApiError['status'], result.message);
  return result.value;
}
