import { Errors } from 'isomorphic-git';
import { describe, expect, it } from 'vitest';
import { failureMessage } from '../../src/services/git-sync/operations';

// What git/info shows of an operation that failed in isomorphic-git: the repository's answer, in the API's words.
describe('git sync failure message', () => {
  it("a push refused as not a fast-forward says the branch moved on and that nothing moved, not isomorphic-git's advice", () => {
    const message = failureMessage(new Errors.PushRejectedError('not-fast-forward'));
    expect(message).toMatch(/^the remote refused the push: its branch moved on since it was read.*nothing was pushed and the space is unchanged/);
    expect(message).not.toContain('force');
  });

  it('a push whose ref update the server refused names the ref and the reason', () => {
    const message = failureMessage(new Errors.GitPushError('\n  - refs/heads/main: pre-receive hook declined', { ok: false, error: null, refs: {} } as never));
    expect(message).toMatch(/^the remote refused the push \(refs\/heads\/main: pre-receive hook declined\): /);
  });

  it('an HTTP error says which status the repository answered, and that 401/403 refuse the credentials', () => {
    expect(failureMessage(new Errors.HttpError(500, '500', ''))).toBe('the repository answered HTTP 500');
    expect(failureMessage(new Errors.HttpError(403, 'Forbidden', ''))).toBe('the repository answered HTTP 403: the credentials were refused');
  });

  it('any other error keeps its message', () => {
    expect(failureMessage(new Error('the ref refs/heads/x does not exist in the repository'))).toBe('the ref refs/heads/x does not exist in the repository');
    expect(failureMessage('plain')).toBe('plain');
  });
});
