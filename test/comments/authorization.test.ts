/**
 * Who may do what with comments and replies, written out as one table per caller, under both path
 * bases (a space's own comments and a change request's). The rules:
 * - reading (list, get, replies, commenters) needs `read`;
 * - posting a comment or a reply, resolving and reacting need `comment` (a reader gets 403);
 * - editing a body needs to be its author (anyone else, even an admin, 403);
 * - deleting needs to be its author or an admin of the space (anyone else who can read, 403); deleting
 *   an id that is not there is a 204 for anyone who can read the space;
 * - guests (no role on the space) and outsiders (another organization) cannot see the space: 404;
 *   no token: 401; another organization's space, change request or comment: 404.
 * The comment and reply the table acts on are posted by two members who are not among the callers,
 * so every caller is a non-author there; authors are tested on their own below.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { CommentReplySchema, CommentSchema } from '../../src/schemas/comment';
import {
  byCaller,
  addMember,
  api,
  callerUser,
  CALLERS,
  createUser,
  expectError,
  expectSchema,
  expectStatus,
  seedOrg,
  type ApiResponse,
  type Caller,
  type TestOrg,
  type TestUser,
} from '../helpers/harness';
import { createSpace, openChangeRequest } from '../helpers/content';

type Operation =
  | 'listComments'
  | 'getComment'
  | 'listReplies'
  | 'getReply'
  | 'commenters'
  | 'postComment'
  | 'postReply'
  | 'resolveComment'
  | 'reactComment'
  | 'resolveViaReply'
  | 'reactReply'
  | 'editCommentBody'
  | 'editReplyBody'
  | 'deleteMissingComment'
  | 'deleteMissingReply'
  | 'deleteReply'
  | 'deleteComment';

const S = byCaller;

const READ = S(200, 200, 200, 200, 200, 200, 404, 404);
const COMMENT = S(200, 200, 200, 200, 200, 403, 404, 404);
const NOT_AUTHOR_EDIT = S(403, 403, 403, 403, 403, 403, 404, 404);
const NOT_AUTHOR_DELETE = S(204, 403, 403, 403, 403, 403, 404, 404);
const ABSENT_DELETE = S(204, 204, 204, 204, 204, 204, 404, 404);

/** In the order they are called (the deletions last, so the other calls act on the comment and reply). */
const EXPECTED: Record<Operation, Record<Caller, number>> = {
  listComments: READ,
  getComment: READ,
  listReplies: READ,
  getReply: READ,
  commenters: READ,
  postComment: COMMENT,
  postReply: COMMENT,
  resolveComment: COMMENT,
  reactComment: COMMENT,
  resolveViaReply: COMMENT,
  reactReply: COMMENT,
  editCommentBody: NOT_AUTHOR_EDIT,
  editReplyBody: NOT_AUTHOR_EDIT,
  deleteMissingComment: ABSENT_DELETE,
  deleteMissingReply: ABSENT_DELETE,
  deleteReply: NOT_AUTHOR_DELETE,
  deleteComment: NOT_AUTHOR_DELETE,
};
const OPERATIONS = Object.keys(EXPECTED) as Operation[];

/** An id that exists nowhere (20 base62 characters, like the real ones). */
const MISSING_ID = 'zzzzzzzzzzzzzzzzzzzz';

interface Target {
  /** `/v1/spaces/{id}` or `/v1/spaces/{id}/change-requests/{id}` */
  base: string;
  commentId: string;
  replyId: string;
}

function call(op: Operation, { base, commentId, replyId }: Target, token: string | undefined): Promise<ApiResponse> {
  const comment = `${base}/comments/${commentId}`;
  const reply = `${comment}/replies/${replyId}`;
  switch (op) {
    case 'listComments':
      return api('GET', `${base}/comments`, { token });
    case 'getComment':
      return api('GET', comment, { token });
    case 'listReplies':
      return api('GET', `${comment}/replies`, { token });
    case 'getReply':
      return api('GET', reply, { token });
    case 'commenters':
      return api('GET', `${base}/commenters`, { token });
    case 'postComment':
      return api('POST', `${base}/comments?format=markdown`, { token, body: { body: { markdown: 'A new comment' } } });
    case 'postReply':
      return api('POST', `${comment}/replies?format=markdown`, { token, body: { body: { markdown: 'A new reply' } } });
    case 'resolveComment':
      return api('PUT', comment, { token, body: { resolved: true } });
    case 'reactComment':
      return api('PUT', comment, { token, body: { addedReactions: ['👍'] } });
    case 'resolveViaReply':
      return api('PUT', reply, { token, body: { resolved: true } });
    case 'reactReply':
      return api('PUT', reply, { token, body: { addedReactions: ['🎉'] } });
    case 'editCommentBody':
      return api('PUT', comment, { token, body: { body: { markdown: 'Hijacked comment' } } });
    case 'editReplyBody':
      return api('PUT', reply, { token, body: { body: { markdown: 'Hijacked reply' } } });
    case 'deleteMissingComment':
      return api('DELETE', `${base}/comments/${MISSING_ID}`, { token });
    case 'deleteMissingReply':
      return api('DELETE', `${comment}/replies/${MISSING_ID}`, { token });
    case 'deleteReply':
      return api('DELETE', reply, { token });
    case 'deleteComment':
      return api('DELETE', comment, { token });
  }
}

/** What a successful call answers, beyond its status. */
function checkSuccess(op: Operation, res: ApiResponse, t: Target, caller: TestUser, author: TestUser, label: string) {
  const b = res.body;
  switch (op) {
    case 'listComments':
      expect(b.items.map((c: any) => c.id), label).toContain(t.commentId);
      break;
    case 'getComment':
      expectSchema(CommentSchema, b);
      expect(b.id, label).toBe(t.commentId);
      break;
    case 'listReplies':
      expect(b.items.map((r: any) => r.id), label).toContain(t.replyId);
      break;
    case 'getReply':
      expectSchema(CommentReplySchema, b);
      expect(b.id, label).toBe(t.replyId);
      break;
    case 'commenters':
      expect(b.items.map((m: any) => m.id), label).toContain(author.id);
      break;
    case 'postComment':
      expectSchema(CommentSchema, b);
      expect(b.postedBy.id, label).toBe(caller.id);
      expect(b.body.markdown.trim(), label).toBe('A new comment');
      break;
    case 'postReply':
      expectSchema(CommentReplySchema, b);
      expect(b.postedBy.id, label).toBe(caller.id);
      expect(b.body.markdown.trim(), label).toBe('A new reply');
      break;
    case 'resolveComment':
      expect(b, label).toMatchObject({ id: t.commentId, status: 'resolved' });
      break;
    case 'reactComment':
      expect(b.id, label).toBe(t.commentId);
      expect(reactors(b, '👍'), label).toContain(caller.id);
      break;
    case 'resolveViaReply':
      expect(b.id, label).toBe(t.replyId);
      break;
    case 'reactReply':
      expect(b.id, label).toBe(t.replyId);
      expect(reactors(b, '🎉'), label).toContain(caller.id);
      break;
    default:
      expect(b, label).toBeNull(); // the 204s
  }
}

const reactors = (body: any, emoji: string): string[] => (body.reactions.find((r: any) => r.emoji === emoji)?.users ?? []).map((u: any) => u.user.id);

let org: TestOrg;
/** Members with the comment role who are not callers: they post the comments and replies the table acts on. */
let author: TestUser;
let replier: TestUser;
/** Another organization with its own space, change request, comments and replies. */
let other: { owner: TestUser; spaceId: string; crId: string; spaceComment: Target; crComment: Target };

async function postComment(base: string, user: TestUser, markdown: string): Promise<any> {
  return expectStatus(await api('POST', `${base}/comments`, { token: user.token, body: { body: { markdown } } }), 200).body;
}

async function postReply(base: string, commentId: string, user: TestUser, markdown: string): Promise<any> {
  return expectStatus(await api('POST', `${base}/comments/${commentId}/replies`, { token: user.token, body: { body: { markdown } } }), 200).body;
}

/** A comment by `author` with one reply by `replier`, under `base`. */
async function thread(base: string, label: string, by = author, repliedBy = replier): Promise<Target> {
  const comment = await postComment(base, by, `Comment ${label}`);
  const reply = await postReply(base, comment.id, repliedBy, `Reply ${label}`);
  return { base, commentId: comment.id, replyId: reply.id };
}

beforeAll(async () => {
  org = await seedOrg();
  author = await createUser();
  replier = await createUser();
  await addMember(org.id, author.id, 'comment');
  await addMember(org.id, replier.id, 'comment');

  const owner = await createUser();
  const created = expectStatus(await api('POST', '/v1/orgs', { token: owner.token, body: { title: 'Elsewhere' } }), 201);
  const spaceId = (await createSpace(created.body.id, owner.token, 'Theirs')).id;
  const crId = (await openChangeRequest(spaceId, owner.token, 'Their change')).id;
  other = {
    owner,
    spaceId,
    crId,
    spaceComment: await thread(`/v1/spaces/${spaceId}`, 'theirs', owner, owner),
    crComment: await thread(`/v1/spaces/${spaceId}/change-requests/${crId}`, 'theirs', owner, owner),
  };
});

const SCOPES = ['space', 'change request'] as const;
type ScopeName = (typeof SCOPES)[number];

/** A fresh space (and change request, opened by the owner) to run one test in. */
async function scopeBase(scope: ScopeName, title: string): Promise<string> {
  const spaceId = (await createSpace(org.id, org.owner.token, title)).id;
  if (scope === 'space') return `/v1/spaces/${spaceId}`;
  const cr = await openChangeRequest(spaceId, org.owner.token, title);
  return `/v1/spaces/${spaceId}/change-requests/${cr.id}`;
}

/** The comment as the space's admin sees it, in Markdown (null when gone). */
async function readBack(path: string): Promise<any | null> {
  const res = await api('GET', `${path}?format=markdown`, { token: org.owner.token });
  if (res.status === 404) {
    expectError(res, 404);
    return null;
  }
  return expectStatus(res, 200).body;
}

describe.each(SCOPES)('%s comments authorization table', (scope) => {
  it('answers every caller as written in the table, and refused calls change nothing', async () => {
    const base = await scopeBase(scope, `Table ${scope}`);
    const failures: string[] = [];
    for (const caller of CALLERS) {
      const user = callerUser(org, caller);
      // A fresh thread per caller, so one caller's success does not change the next one's outcome.
      const t = await thread(base, caller);
      for (const op of OPERATIONS) {
        const res = await call(op, t, user.token);
        const expected = EXPECTED[op][caller];
        const label = `${op} as ${caller}`;
        if (res.status !== expected) {
          failures.push(`${label}: expected ${expected}, got ${res.status} ${JSON.stringify(res.body)}`);
          continue;
        }
        if (expected >= 400) expectError(res, expected);
        else checkSuccess(op, res, t, user, author, label);
        if (op === 'getComment' && expected === 200) {
          // What the comment says the caller may do agrees with the table.
          expect(res.body.permissions, label).toEqual({
            view: true,
            edit: false,
            reply: EXPECTED.postReply[caller] === 200,
            delete: EXPECTED.deleteComment[caller] === 204,
          });
        }
      }

      // Read back as the space's admin: only the calls the table lets through had an effect.
      const ok = (op: Operation) => EXPECTED[op][caller] < 300;
      const comment = await readBack(`${base}/comments/${t.commentId}`);
      if (ok('deleteComment')) {
        expect(comment, caller).toBeNull();
      } else {
        expect(comment.body.markdown.trim(), caller).toBe(`Comment ${caller}`);
        expect(comment, caller).not.toHaveProperty('editedAt');
        expect(comment.status, caller).toBe(ok('resolveComment') || ok('resolveViaReply') ? 'resolved' : 'open');
        expect(reactors(comment, '👍'), caller).toEqual(ok('reactComment') ? [user.id] : []);
        expect(comment.replies, caller).toBe(1 + (ok('postReply') ? 1 : 0) - (ok('deleteReply') ? 1 : 0));
        const reply = await readBack(`${base}/comments/${t.commentId}/replies/${t.replyId}`);
        if (ok('deleteReply')) expect(reply, caller).toBeNull();
        else {
          expect(reply.body.markdown.trim(), caller).toBe(`Reply ${caller}`);
          expect(reply, caller).not.toHaveProperty('editedAt');
          expect(reactors(reply, '🎉'), caller).toEqual(ok('reactReply') ? [user.id] : []);
        }
      }
      const mine = expectStatus(await api('GET', `${base}/comments?authors=${user.id}`, { token: org.owner.token }), 200).body;
      expect(mine.count, caller).toBe(ok('postComment') ? 1 : 0);
    }
    expect(failures).toEqual([]);
  });

  it("lets each author edit and delete their own comment and reply, but not someone else's on their thread", async () => {
    const base = await scopeBase(scope, `Authors ${scope}`);
    const failures: string[] = [];
    const expectAs = (label: string, res: ApiResponse, status: number) => {
      if (res.status !== status) failures.push(`${label}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
      return res;
    };
    for (const caller of ['admin', 'create', 'review', 'edit', 'comment'] as const) {
      const user = org.members[caller];
      // The caller's comment, replied to by someone else; and the caller's reply on someone else's comment.
      const own = await thread(base, `own ${caller}`, user, replier);
      const theirs = await postComment(base, author, `Theirs ${caller}`);
      const ownReply = await postReply(base, theirs.id, user, `Own reply ${caller}`);

      const got = expectAs(`get own comment as ${caller}`, await api('GET', `${base}/comments/${own.commentId}`, { token: user.token }), 200);
      expect(got.body.permissions, caller).toEqual({ view: true, edit: true, reply: true, delete: true });

      const edited = expectAs(
        `edit own comment as ${caller}`,
        await api('PUT', `${base}/comments/${own.commentId}?format=markdown`, { token: user.token, body: { body: { markdown: `Edited by ${caller}` } } }),
        200,
      );
      expect(edited.body.body?.markdown.trim(), caller).toBe(`Edited by ${caller}`);
      expect(edited.body.editedAt, caller).toEqual(expect.any(String));
      const editedReply = expectAs(
        `edit own reply as ${caller}`,
        await api('PUT', `${base}/comments/${theirs.id}/replies/${ownReply.id}?format=markdown`, { token: user.token, body: { body: { markdown: `Reply edited by ${caller}` } } }),
        200,
      );
      expect(editedReply.body.body?.markdown.trim(), caller).toBe(`Reply edited by ${caller}`);

      // Owning the comment gives nothing on a reply to it by someone else.
      expectError(
        expectAs(
          `edit another's reply on own comment as ${caller}`,
          await api('PUT', `${base}/comments/${own.commentId}/replies/${own.replyId}`, { token: user.token, body: { body: { markdown: 'no' } } }),
          403,
        ),
        403,
      );
      // The comment's author cannot edit the caller's comment, nor delete the caller's reply on it.
      expectError(
        expectAs(`edit ${caller}'s comment as another commenter`, await api('PUT', `${base}/comments/${own.commentId}`, { token: replier.token, body: { body: { markdown: 'no' } } }), 403),
        403,
      );
      expectError(expectAs(`delete ${caller}'s reply as the comment's author`, await api('DELETE', `${base}/comments/${theirs.id}/replies/${ownReply.id}`, { token: author.token }), 403), 403);
      const replyToOwn = `${base}/comments/${own.commentId}/replies/${own.replyId}`;
      expectAs(`delete another's reply on own comment as ${caller}`, await api('DELETE', replyToOwn, { token: user.token }), caller === 'admin' ? 204 : 403);
      expect((await readBack(replyToOwn)) === null, caller).toBe(caller === 'admin');
      expect((await readBack(`${base}/comments/${own.commentId}`)).body.markdown.trim(), caller).toBe(`Edited by ${caller}`);

      // The author deletes their own reply and their own comment.
      expectAs(`delete own reply as ${caller}`, await api('DELETE', `${base}/comments/${theirs.id}/replies/${ownReply.id}`, { token: user.token }), 204);
      expect(await readBack(`${base}/comments/${theirs.id}/replies/${ownReply.id}`), caller).toBeNull();
      expectAs(`delete own comment as ${caller}`, await api('DELETE', `${base}/comments/${own.commentId}`, { token: user.token }), 204);
      expect(await readBack(`${base}/comments/${own.commentId}`), caller).toBeNull();
      // The other thread is untouched.
      const kept = await readBack(`${base}/comments/${theirs.id}`);
      expect(kept.body.markdown.trim(), caller).toBe(`Theirs ${caller}`);
      expect(kept.replies, caller).toBe(0);
    }
    expect(failures).toEqual([]);
  });

  it('answers 401 to every operation without a token, changing nothing', async () => {
    const base = await scopeBase(scope, `No token ${scope}`);
    const t = await thread(base, 'anonymous');
    for (const op of OPERATIONS) expectError(await call(op, t, undefined), 401);
    const comment = await readBack(`${base}/comments/${t.commentId}`);
    expect(comment).toMatchObject({ status: 'open', replies: 1, reactions: [] });
    expect(comment.body.markdown.trim()).toBe('Comment anonymous');
    expect((await readBack(`${base}/comments/${t.commentId}/replies/${t.replyId}`)).body.markdown.trim()).toBe('Reply anonymous');
  });

  it("answers 404 for another organization's space, change request, comment and reply ids, changing nothing", async () => {
    const base = await scopeBase(scope, `Foreign ${scope}`);
    const ours = await thread(base, 'ours');
    const theirs = scope === 'space' ? other.spaceComment : other.crComment;
    const failures: string[] = [];
    const check = (label: string, res: ApiResponse, status: number) => {
      if (res.status !== status) failures.push(`${label}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
      else if (status >= 400) expectError(res, status);
    };
    // Their space (or change request) seen by our admin: every operation, 404.
    for (const op of OPERATIONS) check(`${op} on their ${scope}`, await call(op, theirs, org.owner.token), 404);
    // Our space with their change request's id.
    if (scope === 'change request') {
      const spaceId = base.split('/')[3];
      const mixed = { ...theirs, base: `/v1/spaces/${spaceId}/change-requests/${other.crId}` };
      for (const op of OPERATIONS) check(`${op} on their change request under our space`, await call(op, mixed, org.owner.token), 404);
    }
    // Their comment and reply ids under our space or change request: not there. Deleting what is not there is a 204.
    const foreignComment = { base, commentId: theirs.commentId, replyId: theirs.replyId };
    for (const op of ['getComment', 'listReplies', 'getReply', 'postReply', 'resolveComment', 'reactComment', 'editCommentBody', 'resolveViaReply', 'editReplyBody'] as const) {
      check(`${op} with their comment id`, await call(op, foreignComment, org.owner.token), 404);
    }
    check('delete their reply id under our comment', await api('DELETE', `${base}/comments/${ours.commentId}/replies/${theirs.replyId}`, { token: org.owner.token }), 204);
    check('get their reply id under our comment', await api('GET', `${base}/comments/${ours.commentId}/replies/${theirs.replyId}`, { token: org.owner.token }), 404);
    check('update their reply id under our comment', await api('PUT', `${base}/comments/${ours.commentId}/replies/${theirs.replyId}`, { token: org.owner.token, body: { resolved: true } }), 404);
    check('delete their comment id under our scope', await api('DELETE', `${base}/comments/${theirs.commentId}`, { token: org.owner.token }), 204);
    expect(failures).toEqual([]);

    // Theirs are untouched; ours too.
    const theirComment = expectStatus(await api('GET', `${theirs.base}/comments/${theirs.commentId}?format=markdown`, { token: other.owner.token }), 200).body;
    expect(theirComment).toMatchObject({ status: 'open', replies: 1, reactions: [] });
    expect(theirComment.body.markdown.trim()).toBe('Comment theirs');
    const theirReply = expectStatus(await api('GET', `${theirs.base}/comments/${theirs.commentId}/replies/${theirs.replyId}?format=markdown`, { token: other.owner.token }), 200).body;
    expect(theirReply.body.markdown.trim()).toBe('Reply theirs');
    expect(theirReply.reactions).toEqual([]);
    const theirList = expectStatus(await api('GET', `${theirs.base}/comments`, { token: other.owner.token }), 200).body;
    expect(theirList.count).toBe(1);
    const ourComment = await readBack(`${base}/comments/${ours.commentId}`);
    expect(ourComment).toMatchObject({ status: 'open', replies: 1 });
  });
});
