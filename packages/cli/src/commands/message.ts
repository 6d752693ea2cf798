/** A command's MESSAGE operand: the text itself, or `-` for the text on stdin (a long message passes no shell argument limit). */
import { CliError, usageError } from '../failure.js';
import type { Io } from '../output.js';

/** The most stdin may hold for one message: the inspector's request body cap, far above any shell's one-argument limit (128 KiB on Linux). */
export const MAX_STDIN_BYTES = 1024 * 1024;

/** The message MESSAGE stands for: `-` reads stdin to its end, within {@link MAX_STDIN_BYTES}; anything else is the message. */
export async function messageText(operand: string, io: Io): Promise<string> {
  if (operand !== '-') return operand;
  if (io.stdin === undefined) throw usageError('MESSAGE "-" reads stdin, and there is none here', 'pass the message as an argument');
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop (the throw) closes the stream: nothing past the cap is read.
  for await (const chunk of io.stdin) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    size += bytes.length;
    if (size > MAX_STDIN_BYTES) {
      throw new CliError('STDIN_TOO_LARGE', `the message on stdin is over ${MAX_STDIN_BYTES} bytes (1 MiB)`, 'send a shorter message, or cite the long text as a session instead of pasting it');
    }
    chunks.push(bytes);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw usageError('the message on stdin is not UTF-8 text', 'convert it to UTF-8 first (e.g. with iconv)');
  }
  // As `"$(cat file)"` would: the line break an editor or echo leaves at the end is no part of the message.
  return text.replace(/(?:\r?\n)+$/, '');
}
