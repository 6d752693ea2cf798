/** sessref's failures as MCP errors: the JSON-RPC code a client acts on, the stable sessref code beside it. */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { describeFailure } from '../errors.js';
import { classify } from '../classify.js';
import type { FailureClass } from '../failure.js';

/**
 * Failures about what the client asked for. A missing session is
 * `-32602` as the 2026-07-28 revision answers a missing resource; the
 * rest (a damaged log, a storage fault) are the server's: `-32603`.
 */
const CLIENT_FAILURES: ReadonlySet<FailureClass> = new Set(['usage', 'invalid-input', 'not-found', 'over-budget']);

/** The data every sessref error carries: `code` as the CLI prints it (`error CODE: …`), and the fix when there is one. */
interface SessrefErrorData {
  readonly code: string;
  readonly hint?: string;
}

/** `error` as the MCP error a request answers with, worded as the CLI words it; `sessionId` is the session asked for. */
function mcpError(error: unknown, sessionId?: string): ProtocolError {
  if (error instanceof ProtocolError) return error;
  const report = describeFailure(error, sessionId);
  const code = CLIENT_FAILURES.has(classify(error).class) ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError;
  const data: SessrefErrorData = report.hint === undefined ? { code: report.code } : { code: report.code, hint: report.hint };
  return new ProtocolError(code, report.message, data);
}

/** Run `work`, answering its failure as {@link mcpError}. */
export async function answering<T>(work: () => Promise<T>, sessionId?: string): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw mcpError(error, sessionId);
  }
}
