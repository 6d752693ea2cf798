/** Help text: one summary, then each command with examples. */
export const COMMAND_HELP: Record<string, string> = {
  list: `sessref list [QUERY] [--target ID] [--limit N] [--json]
  Without --target: every session in the root, newest first, filtered by QUERY
  (a case-insensitive substring of the id, cwd or title).
  With --target: reference candidates for that session, ranked exactly as the
  plugin ranks them (same cwd, no cwd, other cwd), with canonical mentions.
  --limit N keeps the first N (with --target, the plugin's candidate limit
  applies when --limit is not given).
  Examples:
    sessref list
    sessref list --target scratchpad
    sessref list billing --target scratchpad --limit 5 --json`,
  show: `sessref show ID [--json]
  The session's header and current surface as a reference would project it:
  checkpoint, user and assistant text with sizes, and what fits the budget.
  Examples:
    sessref show oauth-migration
    sessref show research-log --json`,
  search: `sessref search QUERY [--target ID] [--limit N] [--json]
  Sessions whose conversation contains QUERY, best match first: direct user
  text, assistant text and compaction checkpoints of the current surface (what
  a reference would carry), never tool output, reasoning, injected context or
  other sessions' snapshots. QUERY is one literal phrase of whole words, case
  and accents ignored; quotes, OR, NEAR and * are plain text. Each match shows
  the session, its label, the matching message and a snippet. --target ID
  leaves that session out; --limit N keeps the first N (default 50).
  Uses dsh's SQLite FTS5 backend; its derived index lives in the cache
  directory ($SESSREF_CACHE_DIR, else ~/.cache/sessref) and is built by the
  first search, then kept current.
  Examples:
    sessref search "price fetch"
    sessref search refund --limit 5 --json`,
  prepare: `sessref prepare --target ID MESSAGE [--max-bytes N] [--json]
  Run MESSAGE through the real agent/pre-step path for the target and print
  the two model-facing messages and the retention facts. Writes nothing.
  Examples:
    sessref prepare --target scratchpad "Summarize @[Fix flaky CI on main](dsh-session:ImZsYWt5LWNpIg)"
    sessref prepare --target scratchpad "$(sessref mention billing-schema) vs this" --max-bytes 2000`,
  send: `sessref send --target ID MESSAGE [--max-bytes N] [--json]
  Like prepare, then append both messages durably to the target's log.
  Source sessions are only read, never written.
  Example:
    sessref send --target scratchpad "Recap $(sessref mention oauth-migration)"`,
  new: `sessref new [--cwd DIR] [--title T] [--json]
  Create a session in the root and print its id.
  Example:
    sessref new --cwd /home/dev/webapp --title "Release notes"`,
  uri: `sessref uri encode ID | sessref uri decode URI [--json]
  Convert between a session id and its canonical dsh-session: URI.
  Examples:
    sessref uri encode flaky-ci
    sessref uri decode dsh-session:ImZsYWt5LWNpIg`,
  mention: `sessref mention ID [--label L] [--json]
  Print the canonical @[label](dsh-session:…) mention; the label defaults to the title.
  Example:
    sessref mention oauth-migration`,
  seed: `sessref seed [--force]
  Write a demo root: sessions across cwds, titled and untitled, a compacted
  one, a long unicode one (4,000 messages) and one with hostile text.
  Refuses a non-empty root unless --force. Never writes into dsh's own
  sessions unless --root names them: without --root or SESSREF_ROOT it
  seeds ./.sessref/sessions.
  Example:
    sessref seed --root /tmp/demo`,
  serve: `sessref serve [--port N] [--host H] [--seed-if-empty]
  Serve the web inspector (composer with @-mentions and a preview of what the
  model sees). Binds 127.0.0.1 by default and prints the URL with its token.
  --port 0 picks a free port. --seed-if-empty (what npm start passes) serves
  the demo root ./.sessref/sessions unless --root or SESSREF_ROOT names
  another, and writes the demo sessions into it when it is empty.
  Examples:
    sessref serve --port 7317
    npm start -- --port 0`,
};

export const MAIN_HELP = `sessref: cross-session references over dsh session logs

Usage: sessref <command> [options]

Commands:
  list      list sessions, or reference candidates for a target
  show      show a session as a reference would carry it
  search    find sessions by what their conversation says
  prepare   preview the model-facing messages for a message with mentions
  send      prepare, then append to the target's log
  new       create a session
  uri       encode or decode a dsh-session: URI
  mention   print a session's canonical mention
  seed      write a demo session root
  serve     serve the web inspector

Global options:
  --root DIR   session root; else $SESSREF_ROOT, else dsh's sessions
               ($DSH_HOME/sessions, else ~/.dsh/sessions) when they exist,
               else the demo root ./.sessref/sessions
  --json       machine-readable output (errors too, as JSON on stderr)
  --debug      print stack traces on errors
  -h, --help   help for a command (sessref <command> --help)

Exit codes: 0 success, 1 usage or input error, 2 storage error.
Colour is off when NO_COLOR is set or output is not a terminal.`;
