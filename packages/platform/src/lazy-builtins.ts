import type * as NodeCrypto from 'node:crypto';
import { createRequire } from 'node:module';
import type * as NodeZlib from 'node:zlib';

// Built-in modules loaded at their first use. Loading `node:crypto` or `node:zlib` takes a fresh process a few
// milliseconds each, about a tenth of Node's own start, and most commands need neither: a `list` over unchanged logs
// hashes nothing and decompresses nothing (every header it shows was kept from an earlier read).

let crypto: typeof NodeCrypto | undefined;
let zlib: typeof NodeZlib | undefined;

/** `node:crypto`, loaded at the first call. */
export function nodeCrypto(): typeof NodeCrypto {
  return (crypto ??= createRequire(import.meta.url)('node:crypto') as typeof NodeCrypto);
}

/** `node:zlib`, loaded at the first call. */
export function nodeZlib(): typeof NodeZlib {
  return (zlib ??= createRequire(import.meta.url)('node:zlib') as typeof NodeZlib);
}
