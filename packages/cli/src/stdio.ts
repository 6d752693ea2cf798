/**
 * Standard output and standard error as the command line writes them.
 *
 * Node's `process.stdout` is a stream, and making it loads Node's stream
 * modules (for a pipe, its network stack too): about 3 ms of a command whose
 * output goes to /dev/null and 7 ms of one read through a pipe, where Node's
 * own start costs about 30. A regular file, a pipe (a socket, as Node makes
 * the pipes of a child process) and /dev/null take a blocking write of a
 * whole text, so sessref writes to those itself; a terminal (whose width and
 * colours the stream knows) gets Node's stream, as does a pipe that would
 * block a write (one set non-blocking by whoever shares it): from then on
 * every byte goes through the stream, in order.
 */
import { fstatSync, statSync, writeSync } from 'node:fs';

/** Where the command line writes text: a descriptor written directly, or one of Node's streams. */
export interface TextOutput {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

type StandardDescriptor = 1 | 2;

/** The Node streams made so far, each with the broken-pipe policy on. */
const streams = new Map<StandardDescriptor, NodeJS.WriteStream>();

/**
 * Node's stream for standard output (1) or error (2). A reader that stops
 * early (`sessref show X | head -1`) closes the pipe: that ends the output,
 * not in a crash.
 */
export function nodeStream(fd: StandardDescriptor): NodeJS.WriteStream {
  let stream = streams.get(fd);
  if (stream === undefined) {
    stream = fd === 1 ? process.stdout : process.stderr;
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') endOutput();
      throw error;
    });
    streams.set(fd, stream);
  }
  return stream;
}

/** Standard output (1) or error (2) for the command line's text: written directly when the descriptor takes whole writes. */
export function standardOutput(fd: StandardDescriptor): TextOutput {
  return takesWholeWrites(fd) ? new DescriptorOutput(fd) : lazyStream(fd);
}

/** Resolves once every Node stream made so far has passed on all it was given (direct writes are done when they return). */
export function allFlushed(): Promise<void> {
  return Promise.all([...streams.values()].map(flushed)).then(() => undefined);
}

/** A regular file, a pipe, a socket or /dev/null; not a terminal or a closed descriptor. */
function takesWholeWrites(fd: StandardDescriptor): boolean {
  try {
    const stats = fstatSync(fd);
    return stats.isFile() || stats.isFIFO() || stats.isSocket() || (stats.isCharacterDevice() && stats.rdev === statSync('/dev/null').rdev);
  } catch {
    return false;
  }
}

/** Writes each text whole with blocking writes, until one would block; then hands over to Node's stream. */
class DescriptorOutput implements TextOutput {
  private stream: NodeJS.WriteStream | undefined;

  constructor(private readonly fd: StandardDescriptor) {}

  write(text: string): boolean {
    if (this.stream !== undefined) return this.stream.write(text);
    const bytes = Buffer.from(text);
    let written = 0;
    try {
      while (written < bytes.length) written += writeSync(this.fd, bytes, written);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') endOutput();
      if (code !== 'EAGAIN') throw error;
      this.stream = nodeStream(this.fd);
      return this.stream.write(bytes.subarray(written));
    }
  }
}

/** Node's stream, made at the first use of it. */
function lazyStream(fd: StandardDescriptor): TextOutput {
  return {
    write: (text) => nodeStream(fd).write(text),
    get isTTY() {
      return nodeStream(fd).isTTY;
    },
    get columns() {
      return nodeStream(fd).columns;
    },
  };
}

/** The reader went away: nothing more can be said, and the command's status stands. */
function endOutput(): never {
  process.exit(process.exitCode ?? 0);
}

function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return stream.writableLength === 0 ? Promise.resolve() : new Promise((resolve) => stream.write('', () => resolve()));
}
