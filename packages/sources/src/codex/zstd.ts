import { errorCode } from '@sessref/core';
import { SourceReadError } from '../errors.js';
import { nodeZlib, scanFrame } from '@sessref/platform';

/** The most a compressed rollout may expand to: what sessref reads of a plain one, so a zstd bomb stops here. */
const MAX_DECOMPRESSED_BYTES = 256 * 1024 * 1024;

type Decompress = (frame: Buffer, options: { maxOutputLength: number }) => Buffer;

/**
 * The plaintext of a `.jsonl.zst` rollout, at most `maxBytes` long. Codex
 * writes one frame, but its reader (the `zstd` crate's stream decoder) reads
 * on through further frames, and Node's decoder stops silently after the
 * first and returns a cut frame without complaint; so each frame is found by
 * its own structure (`scanFrame`, RFC 8878) and decoded alone, and a cut one
 * is refused.
 */
export function decompressZstd(bytes: Buffer, maxBytes = MAX_DECOMPRESSED_BYTES): Buffer {
  const decompress = zstdDecompressor();
  const parts: Buffer[] = [];
  let total = 0;
  for (let start = 0; start < bytes.length; ) {
    const end = frameEnd(bytes, start);
    const part = decodeFrame(decompress, bytes.subarray(start, end), maxBytes - total, maxBytes);
    parts.push(part);
    total += part.length;
    start = end;
  }
  return Buffer.concat(parts, total);
}

/** Node's zstd decoder (Node >= 22.15); this package also loads on older Node, which has none. */
function zstdDecompressor(): Decompress {
  // `node:zlib` is loaded here, not with the module: a listing of Codex's or OpenClaw's sessions from their caches decompresses nothing.
  const zlib = nodeZlib();
  // The type definitions describe the newest Node; the running one may lack the function.
  const decompress: unknown = zlib.zstdDecompressSync;
  if (typeof decompress !== 'function') {
    throw new SourceReadError('SOURCE_SESSION_UNSUPPORTED', `is zstd-compressed, which needs Node.js 22.15 or later (this is ${process.version})`);
  }
  return zlib.zstdDecompressSync;
}

function decodeFrame(decompress: Decompress, frame: Buffer, remaining: number, maxBytes: number): Buffer {
  let plain: Buffer;
  try {
    // Node refuses a limit below 1; a frame that yields anything past `remaining` is caught below.
    plain = decompress(frame, { maxOutputLength: Math.max(1, remaining) });
  } catch (error) {
    if (errorCode(error) === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(maxBytes);
    throw new SourceReadError('SOURCE_SESSION_CORRUPT', 'is not valid zstd data', { cause: error });
  }
  if (plain.length > remaining) throw tooLarge(maxBytes);
  return plain;
}

function tooLarge(maxBytes: number): SourceReadError {
  return new SourceReadError('SOURCE_SESSION_TOO_LARGE', `decompresses to more than the ${maxBytes} bytes sessref reads`);
}

function corrupt(detail: string): SourceReadError {
  return new SourceReadError('SOURCE_SESSION_CORRUPT', `is not valid zstd data: ${detail}`);
}

/** Where the zstd frame starting at `start` ends; damage or a frame cut short is refused. */
function frameEnd(bytes: Buffer, start: number): number {
  const scan = scanFrame(bytes, start);
  if (scan.kind === 'corrupt') throw corrupt(scan.detail);
  if (scan.kind === 'incomplete') throw corrupt('the last frame is cut short');
  return scan.end;
}
