import { join, resolve } from 'node:path';

/**
 * The folder an environment variable names as the agents that read it do
 * (pi's `expandTildePath`, Qwen Code's `Storage.resolvePath`): unset or
 * empty is none; `~` or a leading `~/` is the user's home; a relative path
 * is resolved against the current directory.
 */
export function configuredFolder(value: string | undefined, home: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  return resolve(value === '~' || value.startsWith('~/') ? join(home, value.slice(1)) : value);
}
