/**
 * `sessref mcp`: a stdio MCP server over the sessions the CLI reads. One
 * prompt, `ref`, is its face; resources only when asked for; no tools, but
 * an empty `tools/list`, which Codex needs to count a server as started.
 * Served by the SDK's `serveStdio`, which answers the current revision
 * (2026-07-28, opened by `server/discover`) and the `initialize` handshake
 * of clients on older ones from the same server definition.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import type { EngineOptions } from '../engine/engine.js';
import { terminalSafe } from '../output.js';
import { registerRefPrompt } from './prompt.js';
import { serveSessionResources } from './resources.js';
import { CitableSessions } from './sessions.js';

export interface McpOptions {
  readonly engine: EngineOptions;
  /** Also list and serve every session as a resource (model-readable: see resources.ts). */
  readonly resources: boolean;
  /** Resources per `resources/list` page. */
  readonly pageSize: number;
}

export const DEFAULT_PAGE_SIZE = 50;

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
  const sessions = await CitableSessions.open({ ...options.engine, watchLogs: true }, process.cwd());
  try {
    const transport = new StdioServerTransport(process.stdin, process.stdout, { maxBufferSize: MAX_MESSAGE_BYTES });
    const handle = serveStdio(() => mcpServer(sessions, options), {
      transport,
      // The client's own mistakes (a line that is not JSON, an oversized one) land here: logged, never fatal.
      onerror: (error) => stderr.write(`sessref mcp: ${terminalSafe(error.message)}\n`),
    });
    await closed(transport);
    await handle.close();
  } finally {
    await sessions.close();
  }
}

/** One server definition, which serveStdio pins to a connection (or a discarded `server/discover` probe). */
function mcpServer(sessions: CitableSessions, options: McpOptions): McpServer {
  const server = new McpServer({ name: 'sessref', title: 'sessref: cite other sessions', version: '0.1.0' }, { capabilities: { tools: { listChanged: false } } });
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
