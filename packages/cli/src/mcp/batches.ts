/**
 * JSON-RPC batches on `sessref mcp`'s stdin. MCP carries one message per
 * line and no batches, and the SDK's transport drops a line that fails its
 * schema without a reply: a client that sent a batch would wait forever.
 * This filter sits between stdin and the transport and answers a line that
 * is a JSON array itself, as JSON-RPC 2.0 says a server that does not
 * support batches does: one error, -32600 Invalid Request, id null. Every
 * other byte reaches the transport as it came, so its own rules (lines that
 * are not JSON skipped, an oversized line dropping the connection) hold.
 */
import { Transform, type TransformCallback } from 'node:stream';

/** JSON-RPC 2.0's code for a message that is JSON but not a valid request. */
const INVALID_REQUEST = -32600;

/** The one line a batch is answered with. */
const BATCH_REFUSAL = `${JSON.stringify({
  jsonrpc: '2.0',
  id: null,
  error: { code: INVALID_REQUEST, message: 'Invalid Request: JSON-RPC batches are not supported; send one message per line' },
})}\n`;

const NEWLINE = 0x0a;
const OPEN_BRACKET = 0x5b;
/** JSON's insignificant whitespace: space, tab, line feed, carriage return. */
const JSON_WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

export class BatchRefusal extends Transform {
  /** The start of a line whose end has not arrived yet. */
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** The current line grew past the bound: it goes on to the transport as it comes, which drops the connection. */
  private passing = false;

  /**
   * @param reply writes one answer line to the client (the transport's stdout).
   * @param maxLineBytes the longest line held back to be looked at; the transport's own bound.
   */
  constructor(
    private readonly reply: (line: string) => void,
    private readonly maxLineBytes: number,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE, start); end >= 0; end = chunk.indexOf(NEWLINE, start)) {
      this.endLine(chunk.subarray(start, end + 1));
      start = end + 1;
    }
    if (start < chunk.length) this.hold(chunk.subarray(start));
    callback();
  }

  override _flush(callback: TransformCallback): void {
    // A last line without its newline: the transport never reads it as a message either.
    if (this.heldBytes > 0) this.push(Buffer.concat(this.held));
    this.held = [];
    this.heldBytes = 0;
    callback();
  }

  private hold(part: Buffer): void {
    if (this.passing) {
      this.push(part);
      return;
    }
    this.held.push(part);
    this.heldBytes += part.length;
    if (this.heldBytes > this.maxLineBytes) {
      this.push(Buffer.concat(this.held));
      this.held = [];
      this.heldBytes = 0;
      this.passing = true;
    }
  }

  private endLine(part: Buffer): void {
    if (this.passing) {
      this.passing = false;
      this.push(part);
      return;
    }
    const line = this.heldBytes === 0 ? part : Buffer.concat([...this.held, part]);
    this.held = [];
    this.heldBytes = 0;
    if (isBatch(line)) this.reply(BATCH_REFUSAL);
    else this.push(line);
  }
}

/** Whether a line is a JSON array: its first significant byte is `[` and it parses. */
function isBatch(line: Buffer): boolean {
  let first = 0;
  while (first < line.length && JSON_WHITESPACE.has(line[first]!)) first += 1;
  if (line[first] !== OPEN_BRACKET) return false;
  try {
    return Array.isArray(JSON.parse(line.toString('utf8')));
  } catch {
    // Not JSON at all: the transport skips it, as it skips every such line.
    return false;
  }
}
