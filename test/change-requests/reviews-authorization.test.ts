/**
 * Who may review a change request and ask for reviewers, written out as one table per caller. The rules:
 * - submitting a review needs the `review` role (edit, comment, read: 403) and not to be the change
 *   request's author (403); it answers 201;
 * - listing reviews, reading one and listing requested reviewers need `read`;
 * - asking for reviewers needs `edit` (comment, read: 403) and answers 200; asking a user without the
 *   review role on the space, or the change request's author, is a 400;
 * - withdrawing a request needs `edit`: 204;
 * - guests and outsiders cannot see the space (404); no token: 401; another organization's space,
 *   change request or review: 404.
 * The change requests the table acts on are opened by the `edit` member, so the callers with the
 * review role are not their authors; authors are tested on their own below.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ChangeRequestReviewSchema, RequestedReviewerSchema } from '../../src/schemas/review';
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

type Operation = 'listReviews' | 'getReview' | 'listRequested' | 'submitReview' | 'requestReviewer' | 'withdrawRequest';

const S = byCaller;

const EXPECTED: Record<Operation, Record<Caller, number>> = {
  listReviews: S(200, 200, 200, 200, 200, 200, 404, 404),
  getReview: S(200, 200, 200, 200, 200, 200, 404, 404),
  listRequested: S(200, 200, 200, 200, 200, 200, 404, 404),
  submitReview: S(201, 201, 201, 403, 403, 403, 404, 404),
  requestReviewer: S(200, 200, 200, 200, 403, 403, 404, 404),
  withdrawRequest: S(204, 204, 204, 204, 403, 403, 404, 404),
};
const OPERATIONS = Object.keys(EXPECTED) as Operation[];

interface Target {
  /** `/v1/spaces/{id}/change-requests/{id}` */
  base: string;
  reviewId: string;
}

let org: TestOrg;
let spaceId: string;
/** Members with the review role who are not callers: one reviews before the table, the others are asked to review. */
let fixtureReviewer: TestUser;
let requestTarget: TestUser;
let withdrawTarget: TestUser;
/** Another organization with a space, a change request and a review of it. */
let other: { owner: TestUser; spaceId: string; crId: string; target: Target };

const crBase = (space: string, cr: string) => `/v1/spaces/${space}/change-requests/${cr}`;

function call(op: Operation, { base, reviewId }: Target, token: string | undefined, caller = 'caller'): Promise<ApiResponse> {
  switch (op) {
    case 'listReviews':
      return api('GET', `${base}/reviews`, { token });
    case 'getReview':
      return api('GET', `${base}/reviews/${reviewId}`, { token });
    case 'listRequested':
      return api('GET', `${base}/requested-reviewers`, { token });
    case 'submitReview':
      return api('POST', `${base}/reviews?format=markdown`, { token, body: { status: 'changes-requested', comment: { markdown: `Review by ${caller}` } } });
    case 'requestReviewer':
      return api('POST', `${base}/requested-reviewers`, { token, body: { users: [requestTarget.id] } });
    case 'withdrawRequest':
      return api('DELETE', `${base}/requested-reviewers/${withdrawTarget.id}`, { token });
  }
}

/** A change request opened by `author`, reviewed (approved) by `reviewer`, with `withdrawTarget` asked to review by the owner. */
async function fixture(author: TestUser, reviewer: TestUser, subject: string, inSpace = spaceId, manager = org.owner): Promise<Target> {
  const cr = await openChangeRequest(inSpace, author.token, subject);
  const base = crBase(inSpace, cr.id);
  const review = expectStatus(await api('POST', `${base}/reviews`, { token: reviewer.token, body: { status: 'approved' } }), 201).body;
  const asked = expectStatus(await api('POST', `${base}/requested-reviewers`, { token: manager.token, body: { users: [withdrawTarget.id] } }), 200).body;
  expect(asked.users.map((u: any) => u.user.id)).toEqual([withdrawTarget.id]);
  return { base, reviewId: review.id };
}

async function reviewerIds(base: string): Promise<string[]> {
  const list = expectStatus(await api('GET', `${base}/reviews`, { token: org.owner.token }), 200).body;
  return list.items.map((r: any) => r.reviewer.id);
}

async function requestedIds(base: string, token = org.owner.token): Promise<string[]> {
  const list = expectStatus(await api('GET', `${base}/requested-reviewers`, { token }), 200).body;
  return list.items.map((r: any) => r.user.id).sort();
}

beforeAll(async () => {
  org = await seedOrg();
  spaceId = (await createSpace(org.id, org.owner.token, 'Reviewed')).id;
  fixtureReviewer = await createUser();
  requestTarget = await createUser();
  withdrawTarget = await createUser();
  for (const user of [fixtureReviewer, requestTarget, withdrawTarget]) await addMember(org.id, user.id, 'review');

  const owner = await createUser();
  const created = expectStatus(await api('POST', '/v1/orgs', { token: owner.token, body: { title: 'Elsewhere' } }), 201);
  const theirSpace = (await createSpace(created.body.id, owner.token, 'Theirs')).id;
  const theirCr = await openChangeRequest(theirSpace, owner.token, 'Their change');
  const theirReviewer = await createUser();
  await addMember(created.body.id, theirReviewer.id, 'review');
  const review = expectStatus(await api('POST', `${crBase(theirSpace, theirCr.id)}/reviews`, { token: theirReviewer.token, body: { status: 'approved' } }), 201).body;
  other = { owner, spaceId: theirSpace, crId: theirCr.id, target: { base: crBase(theirSpace, theirCr.id), reviewId: review.id } };
});

describe('change request reviews authorization table', () => {
  it('answers every caller as written in the table, and refused calls change nothing', async () => {
    const failures: string[] = [];
    for (const caller of CALLERS) {
      const user = callerUser(org, caller);
      // A fresh change request per caller (opened by the edit member), so one caller's success does not change the next one's outcome.
      const t = await fixture(org.members.edit, fixtureReviewer, `Table ${caller}`);
      for (const op of OPERATIONS) {
        const res = await call(op, t, user.token, caller);
        const expected = EXPECTED[op][caller];
        const label = `${op} as ${caller}`;
        if (res.status !== expected) {
          failures.push(`${label}: expected ${expected}, got ${res.status} ${JSON.stringify(res.body)}`);
          continue;
        }
        if (expected >= 400) {
          expectError(res, expected);
          continue;
        }
        const b = res.body;
        switch (op) {
          case 'listReviews':
            expect(b.items.map((r: any) => r.id), label).toContain(t.reviewId);
            break;
          case 'getReview':
            expectSchema(ChangeRequestReviewSchema, b);
            expect(b, label).toMatchObject({ id: t.reviewId, status: 'approved', reviewer: { id: fixtureReviewer.id } });
            break;
          case 'listRequested':
            expect(b.items.map((r: any) => r.user.id), label).toEqual([withdrawTarget.id]);
            break;
          case 'submitReview':
            expectSchema(ChangeRequestReviewSchema, b);
            expect(b, label).toMatchObject({ status: 'changes-requested', reviewer: { id: user.id }, outdated: false });
            expect(b.comment?.body.markdown.trim(), label).toBe(`Review by ${caller}`);
            expect(res.headers.get('Location'), label).toBe(b.urls.location);
            break;
          case 'requestReviewer':
            expect(b.users, label).toHaveLength(1);
            expectSchema(RequestedReviewerSchema, b.users[0]);
            expect(b.users[0], label).toMatchObject({ user: { id: requestTarget.id }, requestedBy: { id: user.id } });
            break;
          case 'withdrawRequest':
            expect(b, label).toBeNull();
            break;
        }
      }

      // Read back as the space's admin: only the calls the table lets through had an effect.
      const ok = (op: Operation) => EXPECTED[op][caller] < 300;
      expect(await reviewerIds(t.base), caller).toEqual(ok('submitReview') ? [user.id, fixtureReviewer.id] : [fixtureReviewer.id]);
      const cr = expectStatus(await api('GET', t.base, { token: org.owner.token }), 200).body;
      expect(cr.comments, caller).toBe(ok('submitReview') ? 1 : 0); // the review's comment
      const expectedRequested = [...(ok('requestReviewer') ? [requestTarget.id] : []), ...(ok('withdrawRequest') ? [] : [withdrawTarget.id])].sort();
      expect(await requestedIds(t.base), caller).toEqual(expectedRequested);
    }
    expect(failures).toEqual([]);
  });

  it("refuses authors a review of their own change request (403), whatever their role, and asking them is a 400", async () => {
    const failures: string[] = [];
    for (const author of ['admin', 'create', 'review'] as const) {
      const user = org.members[author];
      const cr = await openChangeRequest(spaceId, user.token, `By ${author}`);
      const base = crBase(spaceId, cr.id);
      for (const status of ['approved', 'changes-requested']) {
        const res = await api('POST', `${base}/reviews`, { token: user.token, body: { status, comment: { markdown: 'Looks good to me' } } });
        if (res.status !== 403) failures.push(`${status} review by its ${author} author: expected 403, got ${res.status} ${JSON.stringify(res.body)}`);
        else expectError(res, 403, 'author');
      }
      // Asking the author to review it, alone or with someone who may: 400, and no request is made.
      for (const users of [[user.id], [requestTarget.id, user.id]]) {
        const res = await api('POST', `${base}/requested-reviewers`, { token: org.members.edit.token, body: { users } });
        if (res.status !== 400) failures.push(`asking the ${author} author to review: expected 400, got ${res.status} ${JSON.stringify(res.body)}`);
        else expectError(res, 400, user.id);
      }
      expect(await reviewerIds(base), author).toEqual([]);
      expect(await requestedIds(base), author).toEqual([]);
      expect(expectStatus(await api('GET', base, { token: org.owner.token }), 200).body.comments, author).toBe(0);
      // Someone else with the review role may review it.
      const other = expectStatus(await api('POST', `${base}/reviews`, { token: fixtureReviewer.token, body: { status: 'approved' } }), 201).body;
      expect(other.reviewer.id).toBe(fixtureReviewer.id);
      expect(await reviewerIds(base), author).toEqual([fixtureReviewer.id]);
    }
    expect(failures).toEqual([]);
  });

  it('asks only users with the review role on the space (400 naming the others, asking nobody)', async () => {
    const t = await fixture(org.members.edit, fixtureReviewer, 'Who can review');
    const stranger = await createUser();
    const cannot: Array<[string, string]> = [
      ['edit member (also the author)', org.members.edit.id],
      ['comment member', org.members.comment.id],
      ['read member', org.members.read.id],
      ['guest', org.members.guest.id],
      ['outsider', org.outsider.id],
      ['user of no organization', stranger.id],
      ['unknown id', 'zzzzzzzzzzzzzzzzzzzz'],
    ];
    const failures: string[] = [];
    for (const [label, id] of cannot) {
      for (const users of [[id], [requestTarget.id, id]]) {
        const res = await api('POST', `${t.base}/requested-reviewers`, { token: org.members.edit.token, body: { users } });
        if (res.status !== 400) failures.push(`asking ${label} (${users.length} users): expected 400, got ${res.status} ${JSON.stringify(res.body)}`);
        else expectError(res, 400, id);
      }
    }
    expect(failures).toEqual([]);
    expect(await requestedIds(t.base)).toEqual([withdrawTarget.id]);
    // Members whose role reaches review may be asked, by a caller with edit.
    const asked = expectStatus(
      await api('POST', `${t.base}/requested-reviewers`, { token: org.members.edit.token, body: { users: [org.members.review.id, org.members.create.id, org.owner.id] } }),
      200,
    ).body;
    expect(asked.users.map((u: any) => u.user.id).sort()).toEqual([org.members.review.id, org.members.create.id, org.owner.id].sort());
    expect(await requestedIds(t.base)).toEqual([org.members.review.id, org.members.create.id, org.owner.id, withdrawTarget.id].sort());
  });

  it('answers 401 to every operation without a token, changing nothing', async () => {
    const t = await fixture(org.members.edit, fixtureReviewer, 'No token');
    for (const op of OPERATIONS) expectError(await call(op, t, undefined), 401);
    expect(await reviewerIds(t.base)).toEqual([fixtureReviewer.id]);
    expect(await requestedIds(t.base)).toEqual([withdrawTarget.id]);
  });

  it("answers 404 for another organization's space, change request and review, changing nothing", async () => {
    const ours = await fixture(org.members.edit, fixtureReviewer, 'Ours');
    const failures: string[] = [];
    const check = (label: string, res: ApiResponse) => {
      if (res.status !== 404) failures.push(`${label}: expected 404, got ${res.status} ${JSON.stringify(res.body)}`);
      else expectError(res, 404);
    };
    // Their change request in their space, by our admin and by our review member.
    for (const op of OPERATIONS) {
      check(`${op} on their change request as our admin`, await call(op, other.target, org.owner.token));
      check(`${op} on their change request as our review member`, await call(op, other.target, org.members.review.token));
    }
    // Their change request's id under our space.
    const mixed = { base: crBase(spaceId, other.crId), reviewId: other.target.reviewId };
    for (const op of OPERATIONS) check(`${op} on their change request id under our space`, await call(op, mixed, org.owner.token));
    // Their review's id under our change request.
    check('get their review under our change request', await api('GET', `${ours.base}/reviews/${other.target.reviewId}`, { token: org.owner.token }));
    expect(failures).toEqual([]);

    const theirs = expectStatus(await api('GET', `${other.target.base}/reviews`, { token: other.owner.token }), 200).body;
    expect(theirs.items.map((r: any) => r.id)).toEqual([other.target.reviewId]);
    expect(await requestedIds(other.target.base, other.owner.token)).toEqual([]);
    expect(await reviewerIds(ours.base)).toEqual([fixtureReviewer.id]);
    expect(await requestedIds(ours.base)).toEqual([withdrawTarget.id]);
  });
});
