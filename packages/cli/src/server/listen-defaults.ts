/**
 * Where the inspector listens unless told otherwise. Apart from
 * `address.ts`, so the command table can name them in help without loading
 * `node:net` into every command.
 */

/** This machine only. */
export const DEFAULT_HOST = '127.0.0.1';

/** The inspector's port when none is given. */
export const DEFAULT_PORT = 7317;
