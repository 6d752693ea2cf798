import * as zlib from 'node:zlib';
import { errorCode } from '@sessref/core';
import { SourceReadError } from '../errors.js';

/** The most a compressed rollout may expand to: what sessref reads of a plain one, so a zstd bomb stops here. */
const MAX_DECOMPRESSED_BYTES = 256 * 1024 * 1024;

const ZSTD_MAGIC = 0xfd2fb528;

type Decompress = (frame: Buffer, options: { maxOutputLength: number }) => Buffer;

/**
 * The plaintext of a `.jsonl.zst` rollout, at most `maxBytes` long. Codex
 * writes one frame, but its reader (the `zstd` crate's stream decoder) reads
 * on through further frames, and Node's decoder stops silently after the
 * first and returns a cut frame without complaint; so each frame is found by
 * its own structure (RFC 8878) and decoded alone, and a cut one is refused.
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

/** Where the zstd frame starting at `start` ends: past its header, its blocks up to the last, and its checksum. */
function frameEnd(bytes: Buffer, start: number): number {
  if (bytes.length - start < 5 || bytes.readUInt32LE(start) !== ZSTD_MAGIC) throw corrupt(`no frame starts at byte ${start}`);
  const descriptor = bytes[start + 4] ?? 0;
  let offset = start + 5 + headerFieldBytes(descriptor);
  for (let last = false; !last; ) {
    if (offset + 3 > bytes.length) throw corrupt('the last frame is cut short');
    const blockHeader = bytes.readUIntLE(offset, 3);
    const blockType = (blockHeader >>> 1) & 3;
    if (blockType === 3) throw corrupt(`reserved block type at byte ${offset}`);
    // An RLE block stores one byte however many it stands for; the others store their size.
    offset += 3 + (blockType === 1 ? 1 : blockHeader >>> 3);
    last = (blockHeader & 1) === 1;
  }
  const end = offset + ((descriptor & 0x04) === 0 ? 0 : 4);
  if (end > bytes.length) throw corrupt('the last frame is cut short');
  return end;
}

/** The frame header's optional fields after its descriptor byte: window size, dictionary id, content size. */
function headerFieldBytes(descriptor: number): number {
  const singleSegment = (descriptor & 0x20) !== 0;
  const dictionaryIdBytes = [0, 1, 2, 4][descriptor & 0x03] ?? 0;
  const contentSizeBytes = [singleSegment ? 1 : 0, 2, 4, 8][descriptor >>> 6] ?? 0;
  return (singleSegment ? 0 : 1) + dictionaryIdBytes + contentSizeBytes;
}
