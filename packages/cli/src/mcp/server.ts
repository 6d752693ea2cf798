/**
 * `sessref mcp`: a stdio MCP server over the sessions the CLI reads. One
 * prompt, `ref`, is its face; resources only when asked for; no tools, but
 * an empty `tools/list`, which Codex needs to count a server as started.
 * Served by the SDK's `serveStdio`, which answers the current revision
 * (2026-07-28, opened by `server/discover`) and the `initialize` handshake
 * of clients on older ones from the same server definition.
 */
// First: the SDK's schemas are built as its module loads, each taking zod's setting then.
import './zod-jitless.js';
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import type { EngineOptions } from '../engine/engine.js';
import { terminalSafe } from '../output.js';
import { BatchRefusal } from './batches.js';
import { registerRefPrompt } from './prompt.js';
import { serveSessionResources } from './resources.js';
import { CitableSessions } from './sessions.js';
import { processPlace } from '../remote/remotes.js';
import { nodeStream } from '../stdio.js';
import { packageVersion } from '../version.js';

export interface McpOptions {
  readonly engine: EngineOptions;
  /** Also list and serve every session as a resource (model-readable: see resources.ts). */
  readonly resources: boolean;
  /** Resources per `resources/list` page. */
  readonly pageSize: number;
  /** Sync every remote (`sessref remote`) at start, then every this many minutes while serving; off when absent. */
  readonly syncEveryMinutes?: number;
}

/**
 * The largest JSON-RPC line read. A request this server answers is a few
 * KiB at most (arguments are capped far below); a longer line is a broken
 * or hostile client, and the transport drops the connection rather than
 * buffer it.
 */
const MAX_MESSAGE_BYTES = 1024 * 1024;

/** Serve MCP on this process's stdin and stdout until the client closes stdin; progress and failures go to `stderr`. */
export async function mcpCommand(options: McpOptions, stderr: { write(text: string): unknown }): Promise<void> {
  // Long-lived like `serve`: the title index follows file events, and content search is primed in the background.
  const say = (line: string) => stderr.write(`sessref mcp: ${terminalSafe(line)}\n`);
  const sessions = await CitableSessions.open({ ...options.engine, watchLogs: true }, process.cwd(), say);
  // Loaded only here: syncing brings rsync's child processes, which a server without --sync-every never starts.
  const stopSyncing =
    options.syncEveryMinutes === undefined ? undefined : (await import('../remote/syncing.js')).keepMirrorsSynced(processPlace(), options.syncEveryMinutes * 60_000, say);
  try {
    // A batch is answered here with Invalid Request: the SDK would drop it without a reply.
    const input = new BatchRefusal((line) => nodeStream(1).write(line), MAX_MESSAGE_BYTES);
    const forwardError = (error: Error) => input.destroy(error);
    process.stdin.on('error', forwardError);
    process.stdin.pipe(input);
    const transport = new StdioServerTransport(input, nodeStream(1), { maxBufferSize: MAX_MESSAGE_BYTES });
    const handle = serveStdio(() => mcpServer(sessions, options), {
      transport,
      // The client's own mistakes (JSON that is not JSON-RPC, an oversized line) land here: logged, never fatal.
      // The SDK skips a line that is not JSON at all without a word.
      onerror: (error) => stderr.write(`sessref mcp: ${terminalSafe(transportErrorLine(error))}\n`),
    });
    await closed(transport);
    await handle.close();
    // The transport may have given up before stdin ended: stop reading it, so the process can exit.
    process.stdin.unpipe(input);
    process.stdin.off('error', forwardError);
    process.stdin.pause();
  } finally {
    await stopSyncing?.();
    await sessions.close();
  }
}

/** How much of why a message was ignored goes to stderr: enough to see the mistake, one line. */
const REASON_CHARS = 200;

/** One of zod's issues, as far as a reason needs it; a union's issue holds each branch's issues. */
interface Issue {
  readonly path?: readonly PropertyKey[];
  readonly message?: string;
  readonly errors?: readonly (readonly Issue[])[];
}

/**
 * What stderr says of a transport error. A message that is JSON but not
 * JSON-RPC fails the SDK's zod schema, whose own message is the issue tree
 * pretty-printed (kilobytes, escaped onto one line): it becomes one short
 * line of its distinct leaf issues instead.
 */
function transportErrorLine(error: Error): string {
  const { issues } = error as { issues?: unknown };
  if (error.name !== 'ZodError' || !Array.isArray(issues)) return error.message;
  const reason = [...new Set(leafIssues(issues as readonly Issue[]))].join('; ');
  return `ignored a message that is not JSON-RPC: ${reason.length > REASON_CHARS ? `${reason.slice(0, REASON_CHARS - 1)}…` : reason}`;
}

/**
 * `path: message` of every issue that is not a union of others, depth first
 * (a branch's paths are relative to its union's), without zod's "Invalid
 * input: " prefix, which every one of them has.
 */
function leafIssues(issues: readonly Issue[], under: readonly PropertyKey[] = []): string[] {
  return issues.flatMap((issue) => {
    const path = [...under, ...(issue.path ?? [])];
    if (issue.errors !== undefined && issue.errors.length > 0) return issue.errors.flatMap((branch) => leafIssues(branch, path));
    const message = (issue.message ?? 'invalid').replace(/^Invalid input: (?=.)/, '');
    return [path.length === 0 ? message : `${path.map(String).join('.')}: ${message}`];
  });
}

/** One server definition, which serveStdio pins to a connection (or a discarded `server/discover` probe). */
function mcpServer(sessions: CitableSessions, options: McpOptions): McpServer {
  const server = new McpServer({ name: 'sessref', title: 'sessref: cite other sessions', version: packageVersion() }, { capabilities: { tools: { listChanged: false } } });
  server.server.setRequestHandler('tools/list', () => ({ tools: [] }));
  registerRefPrompt(server, sessions);
  if (options.resources) serveSessionResources(server, sessions, options.pageSize);
  return server;
}

/**
 * Settles when the transport closes: stdin ended, or the transport gave up
 * on the client. serveStdio sets its own `onclose` as it starts the
 * transport, synchronously, so this one wraps it.
 */
function closed(transport: StdioServerTransport): Promise<void> {
  const served = transport.onclose;
  return new Promise((resolve) => {
    transport.onclose = () => {
      served?.();
      resolve();
    };
  });
}
