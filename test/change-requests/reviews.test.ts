import { beforeAll, describe, expect, it } from 'vitest';
import { ChangeRequestReviewSchema, RequestedReviewerSchema } from '../../src/schemas/review';
import { api, expectError, expectSchema, expectStatus, seedOrg, type TestOrg } from '../helpers/harness';
import { applyChanges, createSpace, merge, openChangeRequest } from '../helpers/content';

/**
 * Reviews, requested reviewers, and the merge rules they satisfy: each rule met and unmet, approvals
 * made outdated by new content or by asking the reviewer again, and the whole flow through the API.
 */

let org: TestOrg;
const author = () => org.members.edit;
const reviewer = () => org.members.review;

beforeAll(async () => {
  org = await seedOrg();
});

/** A space with `rules`, and a change request by the edit member with one page added. */
async function fixture(rules?: unknown[]) {
  const spaceId = (await createSpace(org.id, org.owner.token, 'Reviewed')).id;
  if (rules) expectStatus(await api('PATCH', `/v1/spaces/${spaceId}`, { token: org.owner.token, body: { mergeRules: { type: 'rules', rules } } }), 200);
  const cr = await openChangeRequest(spaceId, author().token, 'Proposal');
  await applyChanges(spaceId, cr.number, author().token, [{ operation: 'insert_page', title: 'New', document: { markdown: 'New page.\n' } }]);
  const base = `/v1/spaces/${spaceId}/change-requests/${cr.number}`;
  return { spaceId, cr, base };
}

const review = (base: string, token: string, status: string, comment?: unknown) =>
  api('POST', `${base}/reviews`, { token, body: { status, ...(comment ? { comment } : {}) } });

describe('reviews', () => {
  it('submits a review against the current revision, with a comment; lists and gets it', async () => {
    const { base, cr, spaceId } = await fixture();
    const res = expectStatus(await review(base, reviewer().token, 'approved', { markdown: 'Looks **good**' }), 201);
    const created = expectSchema(ChangeRequestReviewSchema, res.body);
    const current = expectStatus(await api('GET', base, { token: reviewer().token }), 200).body;
    expect(created).toMatchObject({ object: 'change-request-review', status: 'approved', outdated: false, revision: current.revision, reviewer: { id: reviewer().id } });
    expect(created).not.toHaveProperty('requestedBy');
    expect(res.headers.get('Location')).toBe(created.urls.location);
    expect(created.comment).toMatchObject({ object: 'comment', target: { changeRequest: cr.id, review: created.id } });
    // The review's comment is one of the change request's comments.
    const comments = expectStatus(await api('GET', `${base}/comments?format=markdown`, { token: org.members.read.token }), 200).body;
    expect(comments.items.map((c: any) => c.body.markdown.trim())).toEqual(['Looks **good**']);
    const got = expectStatus(await api('GET', `${base}/reviews/${created.id}?format=markdown`, { token: org.members.read.token }), 200).body;
    expect(got.comment.body.markdown.trim()).toBe('Looks **good**');
    const list = expectStatus(await api('GET', `${base}/reviews`, { token: org.members.read.token }), 200).body;
    expect(list.count).toBe(1);
    expect(list.items[0].id).toBe(created.id);
    expectError(await api('GET', `${base}/reviews/nope`, { token: org.members.read.token }), 404);
    expectError(await api('GET', `/v1/spaces/${spaceId}/change-requests/999/reviews`, { token: org.members.read.token }), 404);
  });

  it('refuses authors, roles below review, merged change requests and bad statuses', async () => {
    const { base, spaceId, cr } = await fixture();
    expectError(await review(base, author().token, 'approved'), 403);
    const own = await openChangeRequest(spaceId, reviewer().token, 'By a reviewer');
    expectError(await review(`/v1/spaces/${spaceId}/change-requests/${own.number}`, reviewer().token, 'approved'), 403, 'own');
    expectError(await review(base, org.members.comment.token, 'approved'), 403);
    expectError(await review(base, reviewer().token, 'lgtm'), 400, 'status');
    expectError(await review(base, reviewer().token, 'approved', { markdown: 'x'.repeat(20_000) }), 400, 'comment');
    expectStatus(await merge(spaceId, cr.number, org.owner.token), 200);
    expectError(await review(base, reviewer().token, 'approved'), 400, 'merged');
    expect(expectStatus(await api('GET', `${base}/reviews`, { token: reviewer().token }), 200).body.count).toBe(0);
  });

  it('a review becomes outdated when the content moves on, or when its reviewer reviews again', async () => {
    const { base, spaceId, cr } = await fixture();
    const first = expectStatus(await review(base, reviewer().token, 'changes-requested'), 201).body;
    const second = expectStatus(await review(base, reviewer().token, 'approved'), 201).body;
    const byId = async (id: string) => expectStatus(await api('GET', `${base}/reviews/${id}`, { token: reviewer().token }), 200).body;
    expect((await byId(first.id)).outdated).toBe(true);
    expect((await byId(second.id)).outdated).toBe(false);
    await applyChanges(spaceId, cr.number, author().token, [{ operation: 'insert_page', title: 'More', document: { markdown: 'More.\n' } }]);
    expect((await byId(second.id)).outdated).toBe(true);
    const current = expectStatus(await api('GET', `${base}/reviews?outdated=false`, { token: reviewer().token }), 200).body;
    expect(current.count).toBe(0);
    const outdated = expectStatus(await api('GET', `${base}/reviews?outdated=true`, { token: reviewer().token }), 200).body;
    expect(outdated.items.map((r: any) => r.id)).toEqual([second.id, first.id]);
    // Paging, newest first.
    const page1 = expectStatus(await api('GET', `${base}/reviews?limit=1`, { token: reviewer().token }), 200).body;
    const page2 = expectStatus(await api('GET', `${base}/reviews?limit=1&page=${page1.next.page}`, { token: reviewer().token }), 200).body;
    expect([...page1.items, ...page2.items].map((r: any) => r.id)).toEqual([second.id, first.id]);
  });
});

describe('requested reviewers', () => {
  it('asks reviewers, lists them, answers the request with a review, withdraws one; the list filter finds them', async () => {
    const { base, spaceId, cr } = await fixture();
    const asked = expectStatus(await api('POST', `${base}/requested-reviewers`, { token: author().token, body: { users: [reviewer().id, org.owner.id], subject: 'Please review' } }), 200).body;
    expect(asked.users).toHaveLength(2);
    for (const r of asked.users) expectSchema(RequestedReviewerSchema, r);
    expect(asked.users[0]).toMatchObject({ object: 'change-request-requested-reviewer', kind: 'user', user: { id: reviewer().id }, requestedBy: { id: author().id } });
    expect(expectStatus(await api('GET', base, { token: author().token }), 200).body.subject).toBe('Please review');
    const filtered = expectStatus(await api('GET', `/v1/spaces/${spaceId}/change-requests?requestedReviewer=${reviewer().id}`, { token: author().token }), 200).body;
    expect(filtered.items.map((c: any) => c.id)).toEqual([cr.id]);
    const reviewed = expectStatus(await review(base, reviewer().token, 'approved'), 201).body;
    expect(reviewed.requestedBy.id).toBe(author().id);
    const left = expectStatus(await api('GET', `${base}/requested-reviewers`, { token: author().token }), 200).body;
    expect(left.items.map((r: any) => r.user.id)).toEqual([org.owner.id]);
    expect(expectStatus(await api('GET', `/v1/spaces/${spaceId}/change-requests?requestedReviewer=${reviewer().id}`, { token: author().token }), 200).body.count).toBe(0);
    // Asking again makes the earlier review outdated.
    expectStatus(await api('POST', `${base}/requested-reviewers`, { token: author().token, body: { users: [reviewer().id] } }), 200);
    expect(expectStatus(await api('GET', `${base}/reviews/${reviewed.id}`, { token: author().token }), 200).body.outdated).toBe(true);
    expectStatus(await api('DELETE', `${base}/requested-reviewers/${org.owner.id}`, { token: author().token }), 204);
    expectStatus(await api('DELETE', `${base}/requested-reviewers/${org.owner.id}`, { token: author().token }), 204);
    const remaining = expectStatus(await api('GET', `${base}/requested-reviewers`, { token: author().token }), 200).body;
    expect(remaining.items.map((r: any) => r.user.id)).toEqual([reviewer().id]);
  });

  it('refuses users who cannot review the space, the author, empty lists and unknown ids', async () => {
    const { base, spaceId } = await fixture();
    const ask = (users: unknown) => api('POST', `${base}/requested-reviewers`, { token: author().token, body: { users } });
    expectError(await ask([org.members.comment.id]), 400, org.members.comment.id);
    expectError(await ask([org.outsider.id]), 400, org.outsider.id);
    expectError(await ask(['nobody']), 400, 'nobody');
    const byCreator = await openChangeRequest(spaceId, org.members.create.token, 'By a creator');
    const askOn = `/v1/spaces/${spaceId}/change-requests/${byCreator.number}/requested-reviewers`;
    expectError(await api('POST', askOn, { token: author().token, body: { users: [org.members.create.id] } }), 400, 'author');
    expectError(await ask([]), 400, 'users');
    expectError(await ask('x'), 400, 'users');
    expect(expectStatus(await api('GET', `${base}/requested-reviewers`, { token: author().token }), 200).body.count).toBe(0);
  });
});

describe('merge rules met by reviews', () => {
  const mergeAs = (spaceId: string, number: number, token = org.owner.token) => merge(spaceId, number, token);

  it('require_at_least_one_approved_review: 403 naming it, then merges once approved', async () => {
    const { spaceId, cr, base } = await fixture([{ rule: 'require_at_least_one_approved_review' }]);
    expectError(await mergeAs(spaceId, cr.number), 403, 'require_at_least_one_approved_review');
    expectStatus(await review(base, reviewer().token, 'changes-requested'), 201);
    expectError(await mergeAs(spaceId, cr.number), 403, 'require_at_least_one_approved_review');
    expectStatus(await review(base, reviewer().token, 'approved'), 201);
    expectStatus(await mergeAs(spaceId, cr.number), 200);
  });

  it('an approval made outdated by a new content batch no longer counts', async () => {
    const { spaceId, cr, base } = await fixture([{ rule: 'require_at_least_one_approved_review' }]);
    expectStatus(await review(base, reviewer().token, 'approved'), 201);
    await applyChanges(spaceId, cr.number, author().token, [{ operation: 'insert_page', title: 'Late', document: { markdown: 'Late.\n' } }]);
    expectError(await mergeAs(spaceId, cr.number), 403, 'approv');
    expectStatus(await review(base, reviewer().token, 'approved'), 201);
    expectStatus(await mergeAs(spaceId, cr.number), 200);
  });

  it('require_at_least_one_review counts any current review', async () => {
    const { spaceId, cr, base } = await fixture([{ rule: 'require_at_least_one_review' }]);
    expectError(await mergeAs(spaceId, cr.number), 403, 'require_at_least_one_review');
    expectStatus(await review(base, reviewer().token, 'changes-requested'), 201);
    expectStatus(await mergeAs(spaceId, cr.number), 200);
  });

  it('require_all_reviews_approved: every current review approves and nobody is still asked', async () => {
    const { spaceId, cr, base } = await fixture([{ rule: 'require_all_reviews_approved' }]);
    expectError(await mergeAs(spaceId, cr.number), 403, 'require_all_reviews_approved');
    expectStatus(await review(base, reviewer().token, 'approved'), 201);
    expectStatus(await review(base, org.members.create.token, 'changes-requested'), 201);
    expectError(await mergeAs(spaceId, cr.number), 403, 'changes');
    expectStatus(await review(base, org.members.create.token, 'approved'), 201);
    expectStatus(await api('POST', `${base}/requested-reviewers`, { token: author().token, body: { users: [org.owner.id] } }), 200);
    expectError(await mergeAs(spaceId, cr.number), 403, 'requested');
    expectStatus(await api('DELETE', `${base}/requested-reviewers/${org.owner.id}`, { token: author().token }), 204);
    expectStatus(await mergeAs(spaceId, cr.number), 200);
  });

  it('require_specific_reviewers needs each named user; require_one_of_specific_reviewers any one of them', async () => {
    const named = [org.members.review.id, org.members.create.id];
    const all = await fixture([{ rule: 'require_specific_reviewers', users: named }]);
    expectStatus(await review(all.base, reviewer().token, 'approved'), 201);
    expectError(await mergeAs(all.spaceId, all.cr.number), 403, org.members.create.id);
    expectStatus(await review(all.base, org.members.create.token, 'approved'), 201);
    expectStatus(await mergeAs(all.spaceId, all.cr.number), 200);

    const one = await fixture([{ rule: 'require_one_of_specific_reviewers', users: named }]);
    expectStatus(await review(one.base, org.owner.token, 'approved'), 201);
    expectError(await mergeAs(one.spaceId, one.cr.number), 403, 'require_one_of_specific_reviewers');
    expectStatus(await review(one.base, org.members.create.token, 'approved'), 201);
    expectStatus(await mergeAs(one.spaceId, one.cr.number), 200);
  });

  it('require_author_to_merge lets only the author merge (with the review role)', async () => {
    const spaceId = (await createSpace(org.id, org.owner.token, 'Authored')).id;
    expectStatus(await api('PATCH', `/v1/spaces/${spaceId}`, { token: org.owner.token, body: { mergeRules: { type: 'rules', rules: [{ rule: 'require_author_to_merge' }] } } }), 200);
    const cr = await openChangeRequest(spaceId, reviewer().token, 'Mine');
    await applyChanges(spaceId, cr.number, reviewer().token, [{ operation: 'insert_page', title: 'Mine', document: { markdown: 'Mine.\n' } }]);
    expectError(await mergeAs(spaceId, cr.number, org.owner.token), 403, 'author');
    expectStatus(await mergeAs(spaceId, cr.number, reviewer().token), 200);
  });

  it('allow_bypass users skip the review rules; rules this deployment cannot evaluate are refused when set', async () => {
    const { spaceId, cr } = await fixture([{ rule: 'require_at_least_one_approved_review' }, { rule: 'allow_bypass', users: [org.owner.id] }]);
    expectStatus(await mergeAs(spaceId, cr.number), 200);
    const other = (await createSpace(org.id, org.owner.token, 'Refused')).id;
    for (const rule of [{ rule: 'require_agent_review' }, { rule: 'custom', expression: 'true' }, { rule: 'made_up' }]) {
      expectError(await api('PATCH', `/v1/spaces/${other}`, { token: org.owner.token, body: { mergeRules: { type: 'rules', rules: [rule] } } }), 400, 'mergeRules');
    }
  });

  it('through the API alone: a reader comments, a writer replies and resolves, a reviewer approves, the held-back merge goes through', async () => {
    const { spaceId, cr, base } = await fixture([{ rule: 'require_specific_reviewers', users: [reviewer().id] }]);
    const page = (await api('GET', `${base}/content/pages`, { token: org.members.comment.token })).body.pages[0];
    const comment = expectStatus(await api('POST', `${base}/comments`, { token: org.members.comment.token, body: { page: page.id, body: { markdown: 'Typo?' } } }), 200).body;
    expectStatus(await api('POST', `${base}/comments/${comment.id}/replies`, { token: author().token, body: { body: { markdown: 'Fixed.' } } }), 200);
    expectStatus(await api('PUT', `${base}/comments/${comment.id}`, { token: author().token, body: { resolved: true } }), 200);
    expectStatus(await api('POST', `${base}/requested-reviewers`, { token: author().token, body: { users: [reviewer().id] } }), 200);
    expectError(await mergeAs(spaceId, cr.number, reviewer().token), 403, 'require_specific_reviewers');
    expectStatus(await review(base, reviewer().token, 'approved'), 201);
    expectStatus(await mergeAs(spaceId, cr.number, reviewer().token), 200);
    expect(expectStatus(await api('GET', base, { token: author().token }), 200).body.status).toBe('merged');
  });
});

describe('found in review', () => {
  it('withdrawing a re-request does not bring an outdated approval back', async () => {
    const { spaceId, cr, base } = await fixture([{ rule: 'require_at_least_one_approved_review' }]);
    const approval = expectStatus(await review(base, reviewer().token, 'approved'), 201).body;
    expectStatus(await api('POST', `${base}/requested-reviewers`, { token: author().token, body: { users: [reviewer().id] } }), 200);
    expectStatus(await api('DELETE', `${base}/requested-reviewers/${reviewer().id}`, { token: author().token }), 204);
    expect(expectStatus(await api('GET', `${base}/reviews/${approval.id}`, { token: author().token }), 200).body.outdated).toBe(true);
    expectError(await merge(spaceId, cr.number, org.owner.token), 403, 'require_at_least_one_approved_review');
  });

  it('require_change_request_description needs text, not white space', async () => {
    const { spaceId, cr, base } = await fixture([{ rule: 'require_change_request_description' }]);
    const blank = { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: '   ', marks: [] }] }] }] };
    expectStatus(await api('PATCH', base, { token: author().token, body: { description: blank } }), 200);
    expectError(await merge(spaceId, cr.number, org.owner.token), 403, 'description');
    const real = structuredClone(blank);
    real.nodes[0].nodes[0].leaves[0].text = 'Why this change';
    expectStatus(await api('PATCH', base, { token: author().token, body: { description: real } }), 200);
    expectStatus(await merge(spaceId, cr.number, org.owner.token), 200);
  });
});
