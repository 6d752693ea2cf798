import { existsSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';

/** `--root DIR`, else `$SESSREF_ROOT`, else `./.sessref/sessions`. */
export function resolveRoot(flag: string | undefined, env: NodeJS.ProcessEnv, cwd = process.cwd()): string {
  return resolve(cwd, flag ?? env.SESSREF_ROOT ?? '.sessref/sessions');
}

export function isEmptyRoot(root: string): boolean {
  return !existsSync(root) || readdirSync(root).length === 0;
}
