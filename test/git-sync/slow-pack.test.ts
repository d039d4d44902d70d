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

describe('a whole pack from a slow server', { timeout: 240_000 }, () => {
  const limit = GIT_TRANSFER_LIMITS.timeoutMs;

  it('whose first byte comes after the time limit of a request, and whose bytes trickle for longer than ten of them, is read', async () => {
    GIT_TRANSFER_LIMITS.timeoutMs = 2_000;
    try {
      // Held 3 s, then 24 bytes every 100 ms: over 5,000 bytes, some 24 s in all (the limit before: 20 s). The gaps are
      // those of a loaded server's trickle (a twentieth of the limit); the bytes per gap make the wait no longer than it
      // must be to pass the old limit.
      const began = Date.now();
      const { operation, space, token } = await importOf('slow-pack-trickle', { holdMs: 3_000, trickleMs: 100, trickleBytes: 24 });
      expect(operation, JSON.stringify(operation)).toMatchObject({ state: 'success', direction: 'import' });
      expect(Date.now() - began).toBeGreaterThan(20_000);
      const pages: any[] = expectStatus(await api('GET', `/v1/spaces/${space.id}/content/pages`, { token }), 200).body.pages;
      expect(pages.map((p) => p.title)).toEqual(['Home']);
    } finally {
      GIT_TRANSFER_LIMITS.timeoutMs = limit;
    }
  });

  it('that stops sending midway fails after the time limit of silence, saying so', async () => {
    GIT_TRANSFER_LIMITS.timeoutMs = 2_000;
    try {
      const began = Date.now();
      const { operation } = await importOf('slow-pack-stalled', { trickleMs: 50, trickleBytes: 64, stallAfter: 256 });
      expect(operation).toMatchObject({ state: 'failure', direction: 'import' });
      expect(operation.error).toMatch(/git-upload-pack sent nothing for 2 s/);
      expect(Date.now() - began).toBeLessThan(18_000);
    } finally {
      GIT_TRANSFER_LIMITS.timeoutMs = limit;
    }
  });
});
