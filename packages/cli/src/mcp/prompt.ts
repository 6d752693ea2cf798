/**
 * The `ref` prompt: the server's primary face. Prompts are user-controlled
 * (a slash command in Claude Code, Gemini CLI, VS Code, Zed) and no client
 * gives its model a way to list or get them, so a session reaches the model
 * only when the user names it here.
 */
import { completable, type GetPromptResult, type McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { answering } from './errors.js';
import type { CitableSessions } from './sessions.js';

const PROMPT_NAME = 'ref';
/** The optional argument that asks for an excerpt instead of the newest messages. */
const AROUND = 'around';

/** `session`, `session2`, `session3`: one argument per session a citation may carry. */
function argumentNames(maxReferences: number): string[] {
  return Array.from({ length: maxReferences }, (_, index) => (index === 0 ? 'session' : `session${index + 1}`));
}

export function registerRefPrompt(server: McpServer, sessions: CitableSessions): void {
  const names = argumentNames(sessions.maxReferences);
  const complete = (value: string) => sessions.suggestions(value);
  const shape = Object.fromEntries(
    names.map((name, index) => {
      const field = completable(z.string().describe(index === 0 ? 'the session to cite: its id, title completion, mention or dsh-session: URI' : 'another session to cite'), complete);
      return [name, index === 0 ? field : field.optional()];
    }),
  );
  const around = completable(
    z.string().describe('cite only the part of each session around this phrase (the first message holding it and its neighbours), not its newest messages'),
    (value, context) => sessions.phrases(value, context?.arguments?.[names[0]!]),
  ).optional();
  server.registerPrompt(
    PROMPT_NAME,
    {
      title: 'Cite sessions',
      description: 'Insert a read-only, bounded snapshot of sessions you choose (dsh or another agent), framed as untrusted background.',
      argsSchema: z.object({ ...shape, [AROUND]: around }),
    },
    (args, ctx) => answering(() => citation(sessions, names, args, ctx.mcpReq.signal)),
  );
}

/** The snapshot as one user-role text message: what every client can insert, Gemini CLI's headless `-p` included. */
async function citation(sessions: CitableSessions, names: readonly string[], args: Record<string, unknown>, signal: AbortSignal): Promise<GetPromptResult> {
  // The first is required (an empty one is refused as naming no session); a later one left empty is simply not given.
  const given = names.map((name) => args[name]).filter((value, index): value is string => typeof value === 'string' && (index === 0 || value.trim() !== ''));
  // An empty phrase (a client may send every argument, empty or not) asks for no excerpt.
  const around = typeof args[AROUND] === 'string' && args[AROUND].trim() !== '' ? args[AROUND] : undefined;
  const context = await sessions.snapshot(given, signal, around);
  const labels = context.sources.map((source) => JSON.stringify(source.entry.label)).join(', ');
  return {
    description: around === undefined ? `Snapshot of ${labels}` : `Excerpt around ${JSON.stringify(around.trim())} of ${labels}`,
    messages: [{ role: 'user', content: { type: 'text', text: context.text } }],
  };
}
