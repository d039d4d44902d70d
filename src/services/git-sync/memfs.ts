import { resolveSegments } from './path-segments';

/**
 * A minimal in-memory file system with the promise API isomorphic-git calls (`fs.promises`): a Worker has no
 * disk, and a Git Sync operation's repository lives only as long as the operation. Directories are implied by
 * the paths of their files and by `mkdir`; symlinks are stored as their target text.
 */
type Node = { kind: 'file'; data: Uint8Array; mtimeMs: number } | { kind: 'dir'; mtimeMs: number } | { kind: 'symlink'; target: string; mtimeMs: number };

function fsError(code: string, path: string): Error {
  return Object.assign(new Error(`${code}: ${path}`), { code });
}

/**
 * Whether a path is absolute and clean: no empty segment (`//`, a trailing `/`), no `.` or `..` segment. One pass, no
 * allocation. A name that begins with a dot (`.git`, `.gitbook`) is clean: every path isomorphic-git asks for is under
 * `/.git/`, and the former test (no `/.` anywhere) sent them all through the split and join (the import's top function).
 */
function isClean(path: string): boolean {
  if (path.charCodeAt(0) !== 47) return false;
  if (path.length === 1) return true;
  let start = 1;
  for (let at = 1; at <= path.length; at++) {
    if (at < path.length && path.charCodeAt(at) !== 47) continue;
    const length = at - start;
    if (length === 0) return false;
    if (path.charCodeAt(start) === 46 && (length === 1 || (length === 2 && path.charCodeAt(start + 1) === 46))) return false;
    start = at + 1;
  }
  return true;
}

export function normalize(path: string): string {
  // isomorphic-git asks for clean absolute paths thousands of times per operation: those are kept as they are.
  if (isClean(path)) return path;
  return `/${resolveSegments(path.split('/'))}`;
}

function parentOf(path: string): string {
  const at = path.lastIndexOf('/');
  return at <= 0 ? '/' : path.slice(0, at);
}

class Stats {
  constructor(
    private readonly node: Node,
    readonly size: number,
  ) {}
  readonly dev = 1;
  readonly ino = 1;
  readonly uid = 1;
  readonly gid = 1;
  get mode() {
    return this.node.kind === 'dir' ? 0o40755 : this.node.kind === 'symlink' ? 0o120000 : 0o100644;
  }
  get mtimeMs() {
    return this.node.mtimeMs;
  }
  get ctimeMs() {
    return this.node.mtimeMs;
  }
  isFile() {
    return this.node.kind === 'file';
  }
  isDirectory() {
    return this.node.kind === 'dir';
  }
  isSymbolicLink() {
    return this.node.kind === 'symlink';
  }
}

/** The bytes are the whole of an ArrayBuffer (not a view into a larger or shared one). */
function ownsBuffer(data: Uint8Array): data is Uint8Array<ArrayBuffer> {
  return data.buffer instanceof ArrayBuffer && data.byteOffset === 0 && data.byteLength === data.buffer.byteLength;
}

export class MemFS {
  private readonly nodes = new Map<string, Node>([['/', { kind: 'dir', mtimeMs: 0 }]]);

  /** Bytes held in files, for the operation's memory accounting. */
  bytes(): number {
    let total = 0;
    for (const node of this.nodes.values()) if (node.kind === 'file') total += node.data.byteLength;
    return total;
  }

  private get(path: string): Node {
    const node = this.nodes.get(normalize(path));
    if (!node) throw fsError('ENOENT', path);
    return node;
  }

  private ensureParent(path: string) {
    const parent = this.nodes.get(parentOf(path));
    if (!parent) throw fsError('ENOENT', path);
    if (parent.kind !== 'dir') throw fsError('ENOTDIR', path);
  }

  readonly promises = {
    readFile: async (path: string, options?: { encoding?: string } | string) => {
      const node = this.get(path);
      if (node.kind !== 'file') throw fsError(node.kind === 'dir' ? 'EISDIR' : 'ENOENT', path);
      const encoding = typeof options === 'string' ? options : options?.encoding;
      if (encoding) return new TextDecoder().decode(node.data);
      // isomorphic-git's FileSystem.read makes a Buffer of what it reads: a view of an ArrayBuffer, but a copy of a
      // Uint8Array. A pack is read whole (megabytes): its own buffer is given, so it is not copied on each read.
      return ownsBuffer(node.data) ? node.data.buffer : node.data;
    },
    writeFile: async (path: string, data: Uint8Array | string) => {
      const at = normalize(path);
      this.ensureParent(at);
      // Kept as given when the bytes are a whole buffer of their own (a pack, an object isomorphic-git wrote: never
      // changed afterwards), so a pack is not held twice while it is written; a view into a larger buffer is copied.
      const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : ownsBuffer(data) ? data : new Uint8Array(data);
      this.nodes.set(at, { kind: 'file', data: bytes, mtimeMs: Date.now() });
    },
    unlink: async (path: string) => {
      const at = normalize(path);
      const node = this.get(at);
      if (node.kind === 'dir') throw fsError('EISDIR', path);
      this.nodes.delete(at);
    },
    readdir: async (path: string) => {
      const at = normalize(path);
      const node = this.get(at);
      if (node.kind !== 'dir') throw fsError('ENOTDIR', path);
      const prefix = at === '/' ? '/' : `${at}/`;
      const names: string[] = [];
      for (const key of this.nodes.keys()) {
        if (key !== at && key.startsWith(prefix) && !key.slice(prefix.length).includes('/')) names.push(key.slice(prefix.length));
      }
      return names;
    },
    mkdir: async (path: string) => {
      const at = normalize(path);
      if (this.nodes.has(at)) throw fsError('EEXIST', path);
      this.ensureParent(at);
      this.nodes.set(at, { kind: 'dir', mtimeMs: Date.now() });
    },
    rmdir: async (path: string) => {
      const at = normalize(path);
      const node = this.get(at);
      if (node.kind !== 'dir') throw fsError('ENOTDIR', path);
      if ((await this.promises.readdir(at)).length > 0) throw fsError('ENOTEMPTY', path);
      this.nodes.delete(at);
    },
    stat: async (path: string) => {
      let node = this.get(path);
      if (node.kind === 'symlink') node = this.get(node.target);
      return new Stats(node, node.kind === 'file' ? node.data.byteLength : 0);
    },
    lstat: async (path: string) => {
      const node = this.get(path);
      return new Stats(node, node.kind === 'file' ? node.data.byteLength : node.kind === 'symlink' ? node.target.length : 0);
    },
    readlink: async (path: string) => {
      const node = this.get(path);
      if (node.kind !== 'symlink') throw fsError('EINVAL', path);
      return node.target;
    },
    symlink: async (target: string, path: string) => {
      const at = normalize(path);
      this.ensureParent(at);
      this.nodes.set(at, { kind: 'symlink', target, mtimeMs: Date.now() });
    },
    chmod: async () => undefined,
  };
}
