/** The project's root directory, for files the project keeps beside its code (local state, downloaded binaries). */
import { existsSync } from 'node:fs';
import * as path from 'node:path';

/** The directory holding package.json above this file (works from src/ under tsx and from dist/src/ once built). */
export function projectRoot(): string {
  let dir = __dirname;
  for (;;) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
}
