import git from 'isomorphic-git';
import type { Env } from '../../env';
import { outboundFetch, type OutboundEnv } from '../../lib/outbound';
import { gitOutboundEnv, type GitCredentials } from './urls';
import { MemFS } from './memfs';

/**
 * Git's smart HTTP protocol from the Worker, through the outbound guard (lib/outbound): isomorphic-git
 * speaks the protocol and reads and writes objects in an in-memory repository (memfs) that lives as long as
 * one operation. Credentials never travel in the URL: `splitCredentials` takes them out of the URL the
 * integration sent, and they go only in the Authorization header isomorphic-git builds from `onAuth`
 * (the guard drops it on a redirect to another origin).
 */

/** Limits of one operation's transfer: a pack larger than this is refused (the operation fails, saying so). */
export const GIT_TRANSFER_LIMITS = {
  /** Largest answer of the remote (the pack of the fetched commit's tree). */
  maxPackBytes: 64 * 1024 * 1024,
  /** Time limit of one request to the remote. */
  timeoutMs: 60_000,
};

async function collect(body: AsyncIterableIterator<Uint8Array> | undefined): Promise<Uint8Array | undefined> {
  if (!body) return undefined;
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const part of body) {
    parts.push(part);
    size += part.byteLength;
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/** isomorphic-git's HTTP client, every request through the outbound guard. */
function guardedHttp(env: OutboundEnv) {
  return {
    async request(request: { url: string; method?: string; headers?: Record<string, string>; body?: AsyncIterableIterator<Uint8Array> }) {
      const body = await collect(request.body);
      const response = await outboundFetch(
        env,
        request.url,
        { method: request.method ?? 'GET', headers: request.headers, body },
        { field: 'url', maxBytes: GIT_TRANSFER_LIMITS.maxPackBytes, timeoutMs: GIT_TRANSFER_LIMITS.timeoutMs },
      );
      const headers: Record<string, string> = {};
      response.headers.forEach((value, key) => (headers[key] = value));
      return {
        url: response.url,
        method: request.method ?? 'GET',
        statusCode: response.status,
        statusMessage: String(response.status),
        headers,
        body: (async function* () {
          yield response.bytes;
        })(),
      };
    },
  };
}

export interface TreeFile {
  path: string;
  oid: string;
  mode: string;
}

/** One operation's repository: fetched at one commit, read and written in memory. */
export class GitSession {
  readonly fs = new MemFS();
  readonly gitdir = '/repo.git';
  private readonly http: ReturnType<typeof guardedHttp>;
  private initialized = false;

  constructor(
    env: Pick<Env, 'OUTBOUND_ALLOWED_HOSTS' | 'GIT_SYNC_ALLOWED_HOSTS'>,
    readonly url: string,
    private readonly credentials: GitCredentials | null,
  ) {
    this.http = guardedHttp(gitOutboundEnv(env));
  }

  private get base() {
    return { fs: this.fs, gitdir: this.gitdir };
  }

  private onAuth = () => (this.credentials ? { username: this.credentials.username, password: this.credentials.password } : { cancel: true });

  private async init() {
    if (this.initialized) return;
    await git.init({ ...this.base, bare: true, defaultBranch: 'main' });
    await git.addRemote({ ...this.base, remote: 'origin', url: this.url });
    this.initialized = true;
  }

  /** The remote's refs (ls-refs). */
  async remoteRefs(): Promise<Map<string, string>> {
    const refs = await git.listServerRefs({ http: this.http, url: this.url, onAuth: this.onAuth, protocolVersion: 1 });
    return new Map(refs.map((r) => [r.ref, r.oid]));
  }

  /** Fetches the commit at `ref` with its tree and blobs (depth 1): the oid, or null when the ref does not exist. */
  async fetchRef(ref: string): Promise<string | null> {
    await this.init();
    const refs = await this.remoteRefs();
    const oid = refs.get(ref) ?? refs.get(`refs/heads/${ref}`) ?? null;
    if (!oid) return null;
    const remoteRef = refs.has(ref) ? ref : `refs/heads/${ref}`;
    await git.fetch({ ...this.base, http: this.http, remote: 'origin', onAuth: this.onAuth, ref: remoteRef, remoteRef, singleBranch: true, depth: 1, tags: false });
    return oid;
  }

  async readCommit(oid: string) {
    return (await git.readCommit({ ...this.base, oid })).commit;
  }

  /** Every file under `directory` of the commit's tree (paths relative to it), recursively. */
  async listFiles(commitOid: string, directory = ''): Promise<TreeFile[]> {
    const commit = await this.readCommit(commitOid);
    let treeOid = commit.tree;
    for (const segment of directory.split('/').filter(Boolean)) {
      const tree = await git.readTree({ ...this.base, oid: treeOid });
      const entry = tree.tree.find((e) => e.path === segment && e.type === 'tree');
      if (!entry) return [];
      treeOid = entry.oid;
    }
    const out: TreeFile[] = [];
    const walk = async (oid: string, prefix: string) => {
      const tree = await git.readTree({ ...this.base, oid });
      for (const entry of tree.tree) {
        const path = prefix ? `${prefix}/${entry.path}` : entry.path;
        if (entry.type === 'tree') await walk(entry.oid, path);
        else if (entry.type === 'blob') out.push({ path, oid: entry.oid, mode: entry.mode });
      }
    };
    await walk(treeOid, '');
    return out;
  }

  async readBlob(oid: string): Promise<Uint8Array> {
    return (await git.readBlob({ ...this.base, oid })).blob;
  }

  async writeBlob(bytes: Uint8Array): Promise<string> {
    return git.writeBlob({ ...this.base, blob: bytes });
  }

  /**
   * Writes the tree of `files` (full paths from the repository's root) and a commit of it on `parent`,
   * then pushes it to `ref` (never forced: a remote that moved on refuses it).
   */
  async commitAndPush(options: { files: TreeFile[]; parent: string | null; message: string; author: { name: string; email: string }; ref: string }): Promise<string> {
    await this.init();
    const tree = await this.writeTreeOf(options.files);
    const timestamp = Math.floor(Date.now() / 1000);
    const who = { ...options.author, timestamp, timezoneOffset: 0 };
    const oid = await git.writeCommit({
      ...this.base,
      commit: { message: options.message.endsWith('\n') ? options.message : `${options.message}\n`, tree, parent: options.parent ? [options.parent] : [], author: who, committer: who },
    });
    const local = 'refs/heads/gitbook-export';
    await git.writeRef({ ...this.base, ref: local, value: oid, force: true });
    const result = await git.push({ ...this.base, http: this.http, url: this.url, onAuth: this.onAuth, ref: local, remoteRef: options.ref, force: false });
    if (!result.ok) {
      const why = result.error ?? Object.values(result.refs ?? {}).find((r) => !r.ok)?.error ?? 'refused';
      throw new Error(`the remote refused the push: ${why}`);
    }
    return oid;
  }

  private async writeTreeOf(files: TreeFile[]): Promise<string> {
    type Dir = { files: TreeFile[]; dirs: Map<string, Dir> };
    const root: Dir = { files: [], dirs: new Map() };
    for (const file of files) {
      const parts = file.path.split('/');
      let dir = root;
      for (const part of parts.slice(0, -1)) {
        let next = dir.dirs.get(part);
        if (!next) dir.dirs.set(part, (next = { files: [], dirs: new Map() }));
        dir = next;
      }
      dir.files.push({ ...file, path: parts[parts.length - 1] });
    }
    const write = async (dir: Dir): Promise<string> => {
      const entries: Array<{ mode: string; path: string; oid: string; type: 'blob' | 'tree' | 'commit' }> = [];
      for (const file of dir.files) entries.push({ mode: file.mode, path: file.path, oid: file.oid, type: file.mode === '160000' ? 'commit' : 'blob' });
      for (const [name, sub] of dir.dirs) entries.push({ mode: '040000', path: name, oid: await write(sub), type: 'tree' });
      return git.writeTree({ ...this.base, tree: entries });
    };
    return write(root);
  }
}
