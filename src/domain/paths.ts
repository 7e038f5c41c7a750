/** Pure POSIX path checks that keep file params inside the workspace root (no Node `path` in workflow code). */
import { keyWords } from './walk';

/** Resolves "." and ".." and repeated slashes. Above the root, ".." stays at "/"; a relative path keeps leading "..". */
export function normalizePosixPath(path: string): string {
  const absolute = path.startsWith('/');
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part !== '..') out.push(part);
    else if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else if (!absolute) out.push('..');
  }
  const joined = out.join('/');
  return absolute ? `/${joined}` : joined || '.';
}

/** True when `path` (absolute, or relative to `root`) names `root` or something under it. "~" paths are outside. */
export function isInsideWorkspace(path: string, root: string): boolean {
  if (path.startsWith('~') || path.includes('\0')) return false;
  const base = normalizePosixPath(root);
  const full = normalizePosixPath(path.startsWith('/') ? path : `${base}/${path}`);
  return base === '/' || full === base || full.startsWith(`${base}/`);
}

const PATH_WORDS = new Set(['path', 'paths', 'file', 'files', 'filename', 'filepath', 'dir', 'dirs', 'directory', 'directories', 'folder', 'folders', 'cwd']);
const URL_WORDS = new Set(['url', 'uri', 'endpoint', 'route', 'href', 'link']);
const PATH_LIKE = /^(?:\/|\.\.?(?:\/|$)|~)/;

/** A param that is a file path: named like one (path, output_dir, files...) or valued like one ("/x", "../x", "~/x"). */
export function isPathParam(key: string | undefined, value: string): boolean {
  const words = key === undefined ? [] : keyWords(key);
  const last = words[words.length - 1];
  if (last !== undefined && PATH_WORDS.has(last)) return true;
  if (last !== undefined && URL_WORDS.has(last)) return false;
  return PATH_LIKE.test(value);
}
