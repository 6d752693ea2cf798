import type * as NodeCrypto from 'node:crypto';
import { createRequire } from 'node:module';

let loaded: typeof NodeCrypto | undefined;

/**
 * `node:crypto`, loaded at the first call. Loading it takes several
 * milliseconds, about a tenth of Node's own start, and most commands hash
 * nothing: a `list` over unchanged logs, say.
 */
export function nodeCrypto(): typeof NodeCrypto {
  return (loaded ??= createRequire(import.meta.url)('node:crypto') as typeof NodeCrypto);
}
