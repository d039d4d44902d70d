/**
 * A request's D1 session keeps the newest bookmark its answers carried without `localeCompare` (db/client
 * `openSession`): the runtime's session compares bookmarks with it, and an isolate's first call builds ICU's collator,
 * an eighth of the Worker's CPU on a cold isolate's first page read (test/bench/cold.ts).
 */
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { laterBookmark, openSession } from '../../src/db/client';

afterEach(() => vi.restoreAllMocks());

describe("a D1 session's bookmarks", () => {
  it('are kept newest first without localeCompare, across reads and a write', async () => {
    const localeCompare = vi.spyOn(String.prototype, 'localeCompare');
    const session = openSession(env.DB, { write: true }) as D1DatabaseSession;
    expect(session.getBookmark()).toBeNull();
    await session.prepare('select 1').first();
    const first = session.getBookmark();
    expect(first).toMatch(/^[0-9a-f]+(-[0-9a-f]+)+$/);
    await session.prepare("create table if not exists d1_bookmark_order (id integer primary key)").run();
    await session.prepare('insert into d1_bookmark_order default values').run();
    const afterWrite = session.getBookmark();
    await session.batch([session.prepare('select 1'), session.prepare('select 2')]);
    expect(laterBookmark(afterWrite, first)).toBe(afterWrite);
    expect(afterWrite).not.toBe(first);
    // Other files write to the same database meanwhile: the bookmark may have moved on, never back.
    expect(laterBookmark(session.getBookmark(), afterWrite)).toBe(session.getBookmark());
    expect(localeCompare).not.toHaveBeenCalled();
  });

  it('start from a bookmark sent back, and keep it until a newer one comes', async () => {
    const writer = openSession(env.DB, { write: true }) as D1DatabaseSession;
    await writer.prepare("create table if not exists d1_bookmark_order (id integer primary key)").run();
    await writer.prepare('insert into d1_bookmark_order default values').run();
    const written = writer.getBookmark()!;
    const reader = openSession(env.DB, { bookmark: written, write: false }) as D1DatabaseSession;
    expect(reader.getBookmark()).toBe(written);
    await reader.prepare('select count(*) from d1_bookmark_order').first();
    expect(laterBookmark(reader.getBookmark(), written)).toBe(reader.getBookmark());
  });
});
