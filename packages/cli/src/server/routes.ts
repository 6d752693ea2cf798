/**
 * Each inspector route's request schema: the one description of what a body
 * may hold, which the server parses with (api.ts) and protocol.ts derives the
 * request types from (`z.input` for the client, `z.output` for the handler).
 * Titles and message text go through the core's one rule for what a person
 * may give (`checkTitle`, `checkMessageText`), as `sessref new` and `send` do.
 * No Node imports: protocol.ts, which the web client compiles, imports these
 * types.
 */
import { checkMessageText, checkTitle } from '../session-input.js';
import { z } from 'zod';

/** A session id: any non-empty string (the engine says whether it names a session). */
const sessionId = z.string().min(1);

/** The `@` menu's `{target, query}`, the query possibly empty (the menu's first keystroke). */
const menuQuery = z.object({ target: sessionId, query: z.string() });

/** A message for a target: preview and send take the same body. */
const compose = z.object({ target: sessionId, text: z.string().transform(checkMessageText) });

export const REQUEST_SCHEMAS = {
  /** A GET: no body. */
  '/api/sessions': z.undefined(),
  /** A GET: no body. */
  '/api/index': z.undefined(),
  '/api/messages': z.object({ sessionId }),
  '/api/candidates': menuQuery,
  /** Content search for the `@` menu: sessions other than `target` whose conversation contains `query`. */
  '/api/search': menuQuery,
  '/api/preview': compose,
  '/api/send': compose,
  /**
   * A new, empty session, as `sessref new` creates it: a title (none or only
   * whitespace names it `Untitled <first 8 characters of its id>`), and an
   * absolute working directory or none (an empty one is none).
   */
  '/api/new': z.object({
    title: z.string().optional().transform(checkTitle),
    cwd: z
      .string()
      .optional()
      .transform((cwd) => (cwd === undefined || cwd.trim() === '' ? undefined : cwd.trim())),
  }),
} as const;

export type RequestSchemas = typeof REQUEST_SCHEMAS;
