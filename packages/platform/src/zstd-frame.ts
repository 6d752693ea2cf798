/**
 * The structure of Zstandard frames, walked without decompressing: the one
 * walk every zstd reader here uses (dsh logs in the host, Codex rollouts).
 * dsh writes a log as independent frames (a header frame, then one per
 * append batch), a rollout may hold several, and Node's `zstdDecompressSync`
 * decodes only the first frame of what it is given, so a reader must find
 * each frame's end itself. The walk follows the format (RFC 8878): magic,
 * frame-header descriptor, optional window, dictionary and content-size
 * fields, the block chain up to the last block, optional checksum. Reserved
 * bits, reserved block types and any other magic (skippable frames included:
 * neither dsh nor Codex writes them) are damage.
 */

export const ZSTD_MAGIC = 0xfd2fb528;

/** What one Zstandard block may regenerate at most (Block_Maximum_Size). */
const BLOCK_MAXIMUM_BYTES = 128 * 1024;

export type FrameScan =
  /** A complete frame ends at `end` (exclusive); its plaintext is at most `plaintextBound` bytes. */
  | { kind: 'frame'; end: number; plaintextBound: number }
  /** The bytes stop before the frame does. */
  | { kind: 'incomplete' }
  | { kind: 'corrupt'; detail: string };

const INCOMPLETE: FrameScan = { kind: 'incomplete' };

/** The frame that starts at byte `start` of `bytes`; offsets in the answer are absolute. */
export function scanFrame(bytes: Buffer, start: number): FrameScan {
  if (bytes.length - start < 5) return bytes.length - start >= 4 && !hasMagic(bytes, start) ? badMagic(start) : INCOMPLETE;
  if (!hasMagic(bytes, start)) return badMagic(start);
  const descriptor = bytes[start + 4]!;
  if ((descriptor & 0x18) !== 0) return { kind: 'corrupt', detail: `reserved frame-header bit at byte ${start + 4}` };
  const blocks = scanBlocks(bytes, start + 5 + frameHeaderFieldBytes(descriptor));
  if (blocks.kind !== 'frame') return blocks;
  const end = blocks.end + ((descriptor & 0x04) !== 0 ? 4 : 0);
  return end > bytes.length ? INCOMPLETE : { ...blocks, end };
}

function hasMagic(bytes: Buffer, start: number): boolean {
  return bytes.readUInt32LE(start) === ZSTD_MAGIC;
}

function badMagic(start: number): FrameScan {
  return { kind: 'corrupt', detail: `invalid frame magic at byte ${start}` };
}

/** Bytes after the descriptor: window descriptor, dictionary id, frame content size. */
function frameHeaderFieldBytes(descriptor: number): number {
  const contentSizeFlag = descriptor >>> 6;
  const singleSegment = (descriptor & 0x20) !== 0;
  const dictionaryFlag = descriptor & 0x03;
  const dictionaryBytes = dictionaryFlag === 3 ? 4 : dictionaryFlag;
  const contentSizeBytes = contentSizeFlag === 0 ? (singleSegment ? 1 : 0) : 1 << contentSizeFlag;
  return (singleSegment ? 0 : 1) + dictionaryBytes + contentSizeBytes;
}

/**
 * Walk the block chain from `offset` to the end of its last block. The
 * plaintext bound counts a raw block's size, an RLE block's declared size and
 * 128 KiB for a compressed one.
 */
function scanBlocks(bytes: Buffer, offset: number): FrameScan {
  let plaintextBound = 0;
  for (;;) {
    if (bytes.length - offset < 3) return INCOMPLETE;
    const blockHeader = bytes.readUIntLE(offset, 3);
    const blockType = (blockHeader >>> 1) & 3;
    if (blockType === 3) return { kind: 'corrupt', detail: `reserved block type at byte ${offset}` };
    const blockSize = blockHeader >>> 3;
    plaintextBound += blockType === 2 ? BLOCK_MAXIMUM_BYTES : Math.min(blockSize, BLOCK_MAXIMUM_BYTES);
    offset += 3 + (blockType === 1 ? 1 : blockSize);
    if (offset > bytes.length) return INCOMPLETE;
    if ((blockHeader & 1) !== 0) return { kind: 'frame', end: offset, plaintextBound };
  }
}

/** One complete frame of a file: `bytes[start, end)`. */
export interface FrameSpan {
  start: number;
  end: number;
}
