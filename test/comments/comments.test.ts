import { beforeAll, describe, expect, it } from 'vitest';
import { CommentReplySchema, CommentSchema } from '../../src/schemas/comment';
import { api, expectError, expectSchema, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';

/**
 * Comments and replies on a space and on a change request: bodies in both formats, targets (page, block,
 * table cell) and their `outdated` flag, resolving, reactions, counts, filters and paging.
 */

let org: TestOrg;
let spaceId: string;
let pageId: string;
let tablePageId: string;
const TABLE = {
  object: 'document',
  data: {},
  nodes: [
    { object: 'block', type: 'paragraph', key: 'intro', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'A table:', marks: [] }] }] },
    {
      object: 'block',
      type: 'table',
      key: 'tbl',
      isVoid: true,
      data: {
        view: { type: 'grid', columns: ['col1'] },
        records: { rec1: { orderIndex: 'a0', values: { col1: 'cell' } } },
        definition: { col1: { id: 'col1', title: 'Name', type: 'text' } },
      },
      fragments: [],
    },
  ],
};

const token = (role: keyof TestOrg['members']) => org.members[role].token;
const spaceComments = (path = '') => `/v1/spaces/${spaceId}/comments${path}`;

beforeAll(async () => {
  org = await seedOrg();
  spaceId = (await createSpace(org.id, org.owner.token, 'Commented')).id;
  const cr = await openChangeRequest(spaceId, org.owner.token, 'Content');
  const applied = await applyChanges(spaceId, cr.number, org.owner.token, [
    { operation: 'insert_page', title: 'Guide', document: { markdown: 'First paragraph.\n\nSecond paragraph.\n' } },
    { operation: 'insert_page', title: 'Table', document: { document: TABLE } },
  ]);
  pageId = applied.changes[0].page.id;
  tablePageId = applied.changes[1].page.id;
  expectStatus(await merge(spaceId, cr.number, org.owner.token), 200);
});

describe('space comments', () => {
  it('a reader cannot comment; a commenter posts on a page in Markdown and reads it back in both formats', async () => {
    expectError(await api('POST', spaceComments(), { token: token('read'), body: { body: { markdown: 'Hi' } } }), 403);
    const posted = expectStatus(await api('POST', spaceComments(), { token: token('comment'), body: { page: pageId, body: { markdown: '# Question\n\nIs **this** right?' } } }), 200);
    const comment = expectSchema(CommentSchema, posted.body);
    expect(comment).toMatchObject({
      object: 'comment',
      status: 'open',
      replies: 0,
      repliers: [],
      reactions: [],
      postedBy: { id: org.members.comment.id },
      target: { space: spaceId, page: { id: pageId } },
      permissions: { view: true, edit: true, reply: true, delete: true },
    });
    expect(comment.body).toHaveProperty('document');
    const md = expectStatus(await api('GET', spaceComments(`/${comment.id}?format=markdown`), { token: token('read') }), 200);
    expect(md.body.body.markdown).toContain('# Question');
    expect(md.body.body.markdown).toContain('**this**');
    expect(md.body.permissions).toEqual({ view: true, edit: false, reply: false, delete: false });
    const asAdmin = expectStatus(await api('GET', spaceComments(`/${comment.id}`), { token: org.owner.token }), 200);
    expect(asAdmin.body.permissions).toEqual({ view: true, edit: false, reply: true, delete: true });
  });

  it('accepts a rich-text document body and targets blocks and table cells; unknown targets are 400s naming them', async () => {
    const doc = { document: { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Nice', marks: [] }] }] }] } };
    const onBlock = expectStatus(await api('POST', spaceComments(), { token: token('comment'), body: { page: pageId, node: 'k1', body: doc } }), 200);
    expect(onBlock.body.target.node).toEqual({ id: 'k1' });
    const onCell = expectStatus(
      await api('POST', spaceComments(), { token: token('comment'), body: { page: tablePageId, node: 'tbl', tableCell: { record: 'rec1', definition: 'col1' }, body: doc } }),
      200,
    );
    expect(onCell.body.target.tableCell).toEqual({ record: 'rec1', definition: 'col1' });
    const bad: Array<[unknown, string]> = [
      [{ page: 'nopage', body: doc }, 'page'],
      [{ page: pageId, node: 'nokey', body: doc }, 'node'],
      [{ node: 'k1', body: doc }, 'node'],
      [{ page: tablePageId, node: 'intro', tableCell: { record: 'rec1', definition: 'col1' }, body: doc }, 'tableCell'],
      [{ page: tablePageId, node: 'tbl', tableCell: { record: 'nope', definition: 'col1' }, body: doc }, 'tableCell.record'],
      [{ page: tablePageId, node: 'tbl', tableCell: { record: 'rec1', definition: 'nope' }, body: doc }, 'tableCell.definition'],
      [{ body: { markdown: 'x'.repeat(16 * 1024 + 1) } }, 'body'],
      [{ body: { markdown: '   ' } }, 'body'],
      [{ body: { document: { object: 'document', nodes: [{ object: 'block', type: 'nonsense' }] } } }, 'body'],
      [{ body: 'text' }, 'body'],
      [{}, 'body'],
    ];
    for (const [body, field] of bad) expectError(await api('POST', spaceComments(), { token: token('comment'), body }), 400, field);
  });

  it('resolves and reopens, with the open count of the space kept right', async () => {
    const sid = (await createSpace(org.id, org.owner.token, 'Counts')).id;
    const post = async () => expectStatus(await api('POST', `/v1/spaces/${sid}/comments`, { token: token('comment'), body: { body: { markdown: 'c' } } }), 200).body;
    const a = await post();
    const b = await post();
    const count = async () => expectStatus(await api('GET', `/v1/spaces/${sid}`, { token: org.owner.token }), 200).body.comments;
    expect(await count()).toBe(2);
    const resolved = expectStatus(await api('PUT', `/v1/spaces/${sid}/comments/${a.id}`, { token: token('edit'), body: { resolved: true } }), 200).body;
    expectSchema(CommentSchema, resolved);
    expect(resolved).toMatchObject({ status: 'resolved', resolvedBy: { id: org.members.edit.id } });
    expect(resolved.resolvedAt).toEqual(expect.any(String));
    expect(await count()).toBe(1);
    // Resolving again keeps who resolved it first.
    const again = expectStatus(await api('PUT', `/v1/spaces/${sid}/comments/${a.id}`, { token: org.owner.token, body: { resolved: true } }), 200).body;
    expect(again.resolvedBy.id).toBe(org.members.edit.id);
    const reopened = expectStatus(await api('PUT', `/v1/spaces/${sid}/comments/${a.id}`, { token: token('comment'), body: { resolved: false } }), 200).body;
    expect(reopened.status).toBe('open');
    expect(reopened).not.toHaveProperty('resolvedAt');
    expect(reopened).not.toHaveProperty('resolvedBy');
    expect(await count()).toBe(2);
    expectStatus(await api('DELETE', `/v1/spaces/${sid}/comments/${b.id}`, { token: token('comment') }), 204);
    expect(await count()).toBe(1);
    expectError(await api('PUT', `/v1/spaces/${sid}/comments/${a.id}`, { token: token('read'), body: { resolved: true } }), 403);
  });

  it('only the author edits a body (editedAt set); author or admin deletes, with the replies; absent is 204', async () => {
    const c = expectStatus(await api('POST', spaceComments(), { token: token('comment'), body: { body: { markdown: 'draft' } } }), 200).body;
    expect(c).not.toHaveProperty('editedAt');
    expectError(await api('PUT', spaceComments(`/${c.id}`), { token: org.owner.token, body: { body: { markdown: 'hijack' } } }), 403, 'author');
    const edited = expectStatus(await api('PUT', spaceComments(`/${c.id}?format=markdown`), { token: token('comment'), body: { body: { markdown: 'final' } } }), 200).body;
    expect(edited.body.markdown.trim()).toBe('final');
    expect(edited.editedAt).toEqual(expect.any(String));
    const reply = expectStatus(await api('POST', spaceComments(`/${c.id}/replies`), { token: token('edit'), body: { body: { markdown: 'ok' } } }), 200).body;
    expectError(await api('DELETE', spaceComments(`/${c.id}`), { token: token('edit') }), 403);
    expectStatus(await api('DELETE', spaceComments(`/${c.id}`), { token: org.owner.token }), 204);
    expectError(await api('GET', spaceComments(`/${c.id}`), { token: token('read') }), 404);
    expectError(await api('GET', spaceComments(`/${c.id}/replies/${reply.id}`), { token: token('read') }), 404);
    expectStatus(await api('DELETE', spaceComments(`/${c.id}`), { token: org.owner.token }), 204);
  });

  it('replies: post, list oldest first, get, edit, delete; the comment counts replies and repliers', async () => {
    const c = expectStatus(await api('POST', spaceComments(), { token: token('comment'), body: { body: { markdown: 'thread' } } }), 200).body;
    const r1 = expectStatus(await api('POST', spaceComments(`/${c.id}/replies`), { token: token('edit'), body: { body: { markdown: 'one' } } }), 200).body;
    expectSchema(CommentReplySchema, r1);
    await api('POST', spaceComments(`/${c.id}/replies`), { token: token('edit'), body: { body: { markdown: 'two' } } });
    await api('POST', spaceComments(`/${c.id}/replies`), { token: token('review'), body: { body: { markdown: 'three' } } });
    expectError(await api('POST', spaceComments(`/${c.id}/replies`), { token: token('read'), body: { body: { markdown: 'no' } } }), 403);
    const list = expectStatus(await api('GET', spaceComments(`/${c.id}/replies?limit=2&format=markdown`), { token: token('read') }), 200).body;
    expect(list.count).toBe(3);
    expect(list.items.map((r: any) => r.body.markdown.trim())).toEqual(['one', 'two']);
    const rest = expectStatus(await api('GET', spaceComments(`/${c.id}/replies?limit=2&format=markdown&page=${list.next.page}`), { token: token('read') }), 200).body;
    expect(rest.items.map((r: any) => r.body.markdown.trim())).toEqual(['three']);
    expect(rest).not.toHaveProperty('next');
    const got = expectStatus(await api('GET', spaceComments(`/${c.id}`), { token: token('read') }), 200).body;
    expect(got.replies).toBe(3);
    expect(got.repliers.map((r: any) => [r.user.id, r.count]).sort()).toEqual([[org.members.edit.id, 2], [org.members.review.id, 1]].sort());
    expectError(await api('PUT', spaceComments(`/${c.id}/replies/${r1.id}`), { token: token('review'), body: { body: { markdown: 'x' } } }), 403);
    const edited = expectStatus(await api('PUT', spaceComments(`/${c.id}/replies/${r1.id}?format=markdown`), { token: token('edit'), body: { body: { markdown: 'uno' } } }), 200).body;
    expect(edited.body.markdown.trim()).toBe('uno');
    expect(edited.editedAt).toEqual(expect.any(String));
    expectError(await api('DELETE', spaceComments(`/${c.id}/replies/${r1.id}`), { token: token('review') }), 403);
    expectStatus(await api('DELETE', spaceComments(`/${c.id}/replies/${r1.id}`), { token: token('edit') }), 204);
    expectStatus(await api('DELETE', spaceComments(`/${c.id}/replies/${r1.id}`), { token: token('edit') }), 204);
    expectError(await api('GET', spaceComments(`/${c.id}/replies/${r1.id}`), { token: token('read') }), 404);
    expect(expectStatus(await api('GET', spaceComments(`/${c.id}`), { token: token('read') }), 200).body.replies).toBe(2);
    // A reply can resolve its thread.
    const r2 = (await api('GET', spaceComments(`/${c.id}/replies`), { token: token('read') })).body.items[0];
    expectStatus(await api('PUT', spaceComments(`/${c.id}/replies/${r2.id}`), { token: token('comment'), body: { resolved: true } }), 200);
    expect(expectStatus(await api('GET', spaceComments(`/${c.id}`), { token: token('read') }), 200).body.status).toBe('resolved');
  });

  it('reactions: one per user per emoji, idempotent, aggregated with their users; non-emoji is a 400', async () => {
    const c = expectStatus(await api('POST', spaceComments(), { token: token('comment'), body: { body: { markdown: 'react' } } }), 200).body;
    const react = (role: keyof TestOrg['members'], body: unknown) => api('PUT', spaceComments(`/${c.id}`), { token: token(role), body });
    expectStatus(await react('comment', { addedReactions: ['👍', '🎉'] }), 200);
    expectStatus(await react('comment', { addedReactions: ['👍'] }), 200);
    const both = expectStatus(await react('edit', { addedReactions: ['👍', '👍🏽', '🇫🇷', '👨‍👩‍👧'] }), 200).body;
    expectSchema(CommentSchema, both);
    const thumbs = both.reactions.find((r: any) => r.emoji === '👍');
    expect(thumbs.count).toBe(2);
    expect(thumbs.users.map((u: any) => u.user.id)).toEqual([org.members.comment.id, org.members.edit.id]);
    expect(both.reactions.map((r: any) => r.emoji)).toEqual(['👍', '🎉', '👍🏽', '🇫🇷', '👨‍👩‍👧']);
    const removed = expectStatus(await react('comment', { removedReactions: ['👍', '😀'] }), 200).body;
    expect(removed.reactions.find((r: any) => r.emoji === '👍').count).toBe(1);
    for (const emoji of ['a', '👍👍', '', ':+1:', '1f600', 'x'.repeat(100)]) expectError(await react('comment', { addedReactions: [emoji] }), 400);
    expectError(await react('read', { addedReactions: ['👍'] }), 403);
    const reply = expectStatus(await api('POST', spaceComments(`/${c.id}/replies`), { token: token('edit'), body: { body: { markdown: 'r' } } }), 200).body;
    const reacted = expectStatus(await api('PUT', spaceComments(`/${c.id}/replies/${reply.id}`), { token: token('review'), body: { addedReactions: ['❤️'] } }), 200).body;
    expect(reacted.reactions).toEqual([{ emoji: '❤️', count: 1, users: [{ user: expect.objectContaining({ id: org.members.review.id }), reactedAt: expect.any(String) }] }]);
  });

  it('lists newest first by default, filters by status, page and authors, and pages stably', async () => {
    const sid = (await createSpace(org.id, org.owner.token, 'Lists')).id;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const role = i % 2 === 0 ? 'comment' : 'edit';
      ids.push(expectStatus(await api('POST', `/v1/spaces/${sid}/comments`, { token: token(role), body: { body: { markdown: `c${i}` } } }), 200).body.id);
    }
    await api('PUT', `/v1/spaces/${sid}/comments/${ids[1]}`, { token: org.owner.token, body: { resolved: true } });
    const list = async (q: string) => expectStatus(await api('GET', `/v1/spaces/${sid}/comments${q}`, { token: token('read') }), 200).body;
    const all = await list('');
    expect(all.count).toBe(5);
    expect(all.items.map((c: any) => c.id)).toEqual([...ids].reverse());
    expect((await list('?order=asc')).items.map((c: any) => c.id)).toEqual(ids);
    expect((await list('?status=resolved')).items.map((c: any) => c.id)).toEqual([ids[1]]);
    expect((await list('?status=open')).count).toBe(4);
    expect((await list(`?authors=${org.members.edit.id}`)).items.map((c: any) => c.id)).toEqual([ids[3], ids[1]]);
    expect((await list(`?authors=${org.members.edit.id}&authors=${org.members.comment.id}`)).count).toBe(5);
    expect((await list(`?targetPage=${pageId}`)).count).toBe(0);
    const seen: string[] = [];
    let page = await list('?limit=2');
    seen.push(...page.items.map((c: any) => c.id));
    // A comment posted while paging does not shift the pages.
    await api('POST', `/v1/spaces/${sid}/comments`, { token: token('comment'), body: { body: { markdown: 'late' } } });
    while (page.next) {
      page = await list(`?limit=2&page=${page.next.page}`);
      seen.push(...page.items.map((c: any) => c.id));
    }
    expect(seen).toEqual([...ids].reverse());
    expectError(await api('GET', `/v1/spaces/${sid}/comments?status=closed`, { token: token('read') }), 400);
    expectError(await api('GET', `/v1/spaces/${sid}/comments?order=up`, { token: token('read') }), 400);
    expectError(await api('GET', `/v1/spaces/${sid}/comments?page=garbage`, { token: token('read') }), 400);
  });

  it('lists commenters as organization members, most comments first', async () => {
    const sid = (await createSpace(org.id, org.owner.token, 'Commenters')).id;
    const c = expectStatus(await api('POST', `/v1/spaces/${sid}/comments`, { token: token('comment'), body: { body: { markdown: 'a' } } }), 200).body;
    await api('POST', `/v1/spaces/${sid}/comments`, { token: token('comment'), body: { body: { markdown: 'b' } } });
    await api('POST', `/v1/spaces/${sid}/comments/${c.id}/replies`, { token: token('edit'), body: { body: { markdown: 'c' } } });
    const res = expectStatus(await api('GET', `/v1/spaces/${sid}/commenters`, { token: token('read') }), 200).body;
    expect(res.count).toBe(2);
    expect(res.items.map((m: any) => [m.object, m.id])).toEqual([
      ['member', org.members.comment.id],
      ['member', org.members.edit.id],
    ]);
    const paged = expectStatus(await api('GET', `/v1/spaces/${sid}/commenters?limit=1`, { token: token('read') }), 200).body;
    const second = expectStatus(await api('GET', `/v1/spaces/${sid}/commenters?limit=1&page=${paged.next.page}`, { token: token('read') }), 200).body;
    expect([...paged.items, ...second.items].map((m: any) => m.id)).toEqual([org.members.comment.id, org.members.edit.id]);
  });

  it('answers 401 without a token and 404 to guests, outsiders and other organizations', async () => {
    const c = expectStatus(await api('POST', spaceComments(), { token: token('comment'), body: { body: { markdown: 'private' } } }), 200).body;
    expectError(await api('GET', spaceComments()), 401);
    for (const t of [token('guest'), org.outsider.token]) {
      expectError(await api('GET', spaceComments(), { token: t }), 404);
      expectError(await api('GET', spaceComments(`/${c.id}`), { token: t }), 404);
      expectError(await api('POST', spaceComments(), { token: t, body: { body: { markdown: 'x' } } }), 404);
      expectError(await api('DELETE', spaceComments(`/${c.id}`), { token: t }), 404);
    }
    const other = await seedOrg();
    const otherSpace = (await createSpace(other.id, other.owner.token, 'Theirs')).id;
    const theirs = expectStatus(await api('POST', `/v1/spaces/${otherSpace}/comments`, { token: other.owner.token, body: { body: { markdown: 'theirs' } } }), 200).body;
    // Their comment id under our space, and our comment under theirs: neither exists there.
    expectError(await api('GET', spaceComments(`/${theirs.id}`), { token: org.owner.token }), 404);
    expectError(await api('GET', `/v1/spaces/${otherSpace}/comments/${c.id}`, { token: org.owner.token }), 404);
    expectError(await api('PUT', spaceComments(`/${theirs.id}`), { token: org.owner.token, body: { resolved: true } }), 404);
    expectStatus(await api('DELETE', spaceComments(`/${theirs.id}`), { token: org.owner.token }), 204);
    expectStatus(await api('GET', `/v1/spaces/${otherSpace}/comments/${theirs.id}`, { token: other.owner.token }), 200);
  });
});

describe('change request comments', () => {
  it('target pages of the change request; outdated once the page or block is gone, computed when read', async () => {
    const cr = await openChangeRequest(spaceId, org.owner.token, 'Rework');
    const base = `/v1/spaces/${spaceId}/change-requests/${cr.number}`;
    const onPage = expectStatus(await api('POST', `${base}/comments`, { token: token('comment'), body: { page: pageId, body: { markdown: 'page' } } }), 200).body;
    const onBlock = expectStatus(await api('POST', `${base}/comments`, { token: token('comment'), body: { page: tablePageId, node: 'intro', body: { markdown: 'block' } } }), 200).body;
    expectSchema(CommentSchema, onPage);
    expect(onPage.target).toMatchObject({ changeRequest: cr.id, page: { id: pageId, title: 'Guide', outdated: false } });
    expect(onBlock.target.page.outdated).toBe(false);
    expect(expectStatus(await api('GET', base, { token: token('read') }), 200).body.comments).toBe(2);
    // The space's own comment count is not the change request's.
    const spaceCount = expectStatus(await api('GET', `/v1/spaces/${spaceId}`, { token: token('read') }), 200).body.comments;
    await applyChanges(spaceId, cr.number, org.owner.token, [
      { operation: 'delete_page', page: pageId },
      { operation: 'update_page', page: tablePageId, document: { markdown: 'Replaced.\n' } },
    ]);
    const list = expectStatus(await api('GET', `${base}/comments?order=asc`, { token: token('read') }), 200).body;
    expect(list.items.map((c: any) => c.target.page.outdated)).toEqual([true, true]);
    expect(list.items[0].target.page.id).toBe(pageId);
    expect(expectStatus(await api('GET', `/v1/spaces/${spaceId}`, { token: token('read') }), 200).body.comments).toBe(spaceCount);
    // Space comments and change request comments are separate lists.
    const inSpace = expectStatus(await api('GET', `/v1/spaces/${spaceId}/comments`, { token: token('read') }), 200).body;
    expect(inSpace.items.map((c: any) => c.id)).not.toContain(onPage.id);
    expectError(await api('GET', `/v1/spaces/${spaceId}/comments/${onPage.id}`, { token: token('read') }), 404);
    // Merging the deletion keeps the comment readable, still outdated.
    expectStatus(await merge(spaceId, cr.number, org.owner.token), 200);
    const after = expectStatus(await api('GET', `${base}/comments/${onPage.id}`, { token: token('read') }), 200).body;
    expect(after.target.page.outdated).toBe(true);
  });

  it('replies, reactions, resolving and commenters work under the change request path too', async () => {
    const cr = await openChangeRequest(spaceId, org.owner.token, 'Thread');
    const base = `/v1/spaces/${spaceId}/change-requests/${cr.id}`;
    const c = expectStatus(await api('POST', `${base}/comments`, { token: token('comment'), body: { body: { markdown: 'q' } } }), 200).body;
    await api('POST', `${base}/comments`, { token: token('comment'), body: { body: { markdown: 'q2' } } });
    const r = expectStatus(await api('POST', `${base}/comments/${c.id}/replies?format=markdown`, { token: token('edit'), body: { body: { markdown: 'a' } } }), 200).body;
    expect(r.body.markdown.trim()).toBe('a');
    expect(r.urls.location).toContain(`/change-requests/${cr.id}/comments/${c.id}/replies/${r.id}`);
    expectStatus(await api('PUT', `${base}/comments/${c.id}`, { token: token('edit'), body: { resolved: true, addedReactions: ['✅'] } }), 200);
    const got = expectStatus(await api('GET', `${base}/comments/${c.id}`, { token: token('read') }), 200).body;
    expect(got).toMatchObject({ status: 'resolved', replies: 1, reactions: [{ emoji: '✅', count: 1 }] });
    expect(expectStatus(await api('GET', base, { token: token('read') }), 200).body.comments).toBe(1);
    const commenters = expectStatus(await api('GET', `${base}/commenters`, { token: token('read') }), 200).body;
    expect(commenters.items.map((m: any) => m.id)).toEqual([org.members.comment.id, org.members.edit.id]);
    const replies = expectStatus(await api('GET', `${base}/comments/${c.id}/replies`, { token: token('read') }), 200).body;
    expect(replies.count).toBe(1);
    expectError(await api('GET', `/v1/spaces/${spaceId}/change-requests/999/comments`, { token: token('read') }), 404);
  });
});
