import { describe, expect, it } from 'vitest';
import { GIT_TRANSFER_LIMITS } from '../../src/services/git-sync/transport';
import { createSpace } from '../helpers/content';
import { api, expectStatus, seedOrg } from '../helpers/harness';
import { control, createRepository, gitInfo, githubBody, noise, runPending } from '../helpers/git-sync';

/**
 * A whole pack from a server without filters is one request, and the server counts (a host may hold the answer whole)
 * before its first byte (issue 40: under load, an import ended "git-upload-pack did not answer within 60 s"). Its wait is
 * now for silence: its first byte within `packFirstByteMs`, then bytes at least every `timeoutMs` (git's keepalives and
 * progress), up to `streamedPackMs` in all. Before, the whole answer had to come within ten times `timeoutMs`.
 */

const base64 = (bytes: Uint8Array) => btoa(Array.from(bytes, (byte) => String.fromCharCode(byte)).join(''));
const FILES = {
  'README.md': '# Home\n\nWelcome.\n',
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n',
  // Does not compress: the answer is at least its bytes, which trickle.
  '.gitbook/assets/noise.bin': { base64: base64(noise(5_000, 41)) },
};

async function importOf(name: string, slow: Record<string, number>) {
  const { head } = await createRepository(name, { allowFilter: false, files: FILES });
  await control('fail', { name, want: head, ...slow });
  const org = await seedOrg();
  const token = org.owner.token;
  const space = await createSpace(org.id, token);
  expectStatus(await api('POST', `/v1/spaces/${space.id}/git/import`, { token, body: { ...githubBody(name), force: true } }), 204);
  await runPending(space.id);
  return { operation: (await gitInfo(space.id, token)).body.operation, space, token };
}

/**
 * The time limit of a request during these tests: each waits on real time for ten of them at least, so it is short
 * (before, 2 s: the file took 24-33 s), yet twenty times the trickle's gaps and above what a request to the local server
 * takes on a loaded machine.
 */
const LIMIT_MS = 1_000;

describe('a whole pack from a slow server', { timeout: 240_000 }, () => {
  const limit = GIT_TRANSFER_LIMITS.timeoutMs;

  it('whose first byte comes after the time limit of a request, and whose bytes trickle for longer than ten of them, is read', async () => {
    GIT_TRANSFER_LIMITS.timeoutMs = LIMIT_MS;
    try {
      // Held one and a half limits, then 24 bytes every twentieth of the limit: over 5,000 bytes, some 12 limits in all
      // (the limit before: 10 of them). The gaps are those of a loaded server's trickle (a twentieth of the limit); the
      // bytes per gap make the wait no longer than it must be to pass the old limit.
      const began = Date.now();
      const { operation, space, token } = await importOf('slow-pack-trickle', { holdMs: LIMIT_MS * 1.5, trickleMs: LIMIT_MS / 20, trickleBytes: 24 });
      expect(operation, JSON.stringify(operation)).toMatchObject({ state: 'success', direction: 'import' });
      expect(Date.now() - began).toBeGreaterThan(10 * LIMIT_MS);
      const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
      expect(pages.map((p) => p.title)).toEqual(['Home']);
    } finally {
      GIT_TRANSFER_LIMITS.timeoutMs = limit;
    }
  });

  it('that stops sending midway fails after the time limit of silence, saying so', async () => {
    GIT_TRANSFER_LIMITS.timeoutMs = LIMIT_MS;
    try {
      const began = Date.now();
      const { operation } = await importOf('slow-pack-stalled', { trickleMs: LIMIT_MS / 40, trickleBytes: 64, stallAfter: 256 });
      expect(operation).toMatchObject({ state: 'failure', direction: 'import' });
      expect(operation.error).toMatch(new RegExp(`git-upload-pack sent nothing for ${LIMIT_MS / 1000} s`));
      expect(Date.now() - began).toBeLessThan(18_000);
    } finally {
      GIT_TRANSFER_LIMITS.timeoutMs = limit;
    }
  });
});
