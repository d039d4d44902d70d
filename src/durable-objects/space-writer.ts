import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../env';

/**
 * One instance per space (idFromName(spaceId)). Everything that moves a space's head revision goes
 * through it, so head moves for one space are serialized: the input gate admits one request at a time
 * and each move is a compare-and-set on D1, which a concurrent writer elsewhere cannot slip past.
 */
export class SpaceWriter extends DurableObject<Env> {
  /** Moves the head from `expected` to `next`; false when the head had already moved. */
  async moveHead(spaceId: string, expected: string, next: string): Promise<boolean> {
    const result = await this.env.DB.prepare(
      'update spaces set revision_id = ?1, updated_at = ?2 where id = ?3 and revision_id = ?4 and deleted_at is null',
    )
      .bind(next, new Date().toISOString(), spaceId, expected)
      .run();
    return result.meta.changes === 1;
  }
}

export function spaceWriter(env: Env, spaceId: string) {
  return env.SPACE_WRITER.get(env.SPACE_WRITER.idFromName(spaceId));
}
