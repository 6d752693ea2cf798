/**
 * Reading dsh session logs (`session.jsonl.zstd`) without dsh: the file is a
 * run of Zstandard frames, one or more JSONL lines each, so it is split at
 * frame boundaries (read from the frame and block headers) and every frame is
 * decoded with Node 22's `zlib.zstdDecompressSync`, which stops after the
 * first frame of its input.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import zlib from 'node:zlib';

const ZSTD_MAGIC = 0xfd2fb528;

/**
 * Frame boundaries of a Zstandard byte string. A trailing frame that is cut
 * short (a write in progress) is reported as `incomplete`, not as a frame.
 * @param {Buffer} buf
 * @returns {{ frames: { start: number, end: number, skippable: boolean }[], incomplete: number | null }}
 */
function zstdFrames(buf) {
  const frames = [];
  let at = 0;
  while (at < buf.length) {
    const start = at;
    if (buf.length - at < 8) return { frames, incomplete: start };
    const magic = buf.readUInt32LE(at);
    if ((magic & 0xfffffff0) === 0x184d2a50) {
      const size = buf.readUInt32LE(at + 4);
      at += 8 + size;
      if (at > buf.length) return { frames, incomplete: start };
      frames.push({ start, end: at, skippable: true });
      continue;
    }
    if (magic !== ZSTD_MAGIC) throw new Error(`not a Zstandard frame at byte ${start} (magic 0x${magic.toString(16)})`);
    at += 4;
    const descriptor = buf[at];
    at += 1;
    const fcsFlag = descriptor >> 6;
    const singleSegment = (descriptor >> 5) & 1;
    const checksum = (descriptor >> 2) & 1;
    const dictFlag = descriptor & 3;
    at += singleSegment ? 0 : 1;
    at += [0, 1, 2, 4][dictFlag];
    at += [singleSegment ? 1 : 0, 2, 4, 8][fcsFlag];
    for (;;) {
      if (at + 3 > buf.length) return { frames, incomplete: start };
      const header = buf[at] | (buf[at + 1] << 8) | (buf[at + 2] << 16);
      at += 3;
      const last = header & 1;
      const type = (header >> 1) & 3;
      const size = header >> 3;
      if (type === 3) throw new Error(`reserved Zstandard block type in the frame at byte ${start}`);
      at += type === 1 ? 1 : size;
      if (at > buf.length) return { frames, incomplete: start };
      if (last) break;
    }
    at += checksum ? 4 : 0;
    if (at > buf.length) return { frames, incomplete: start };
    frames.push({ start, end: at, skippable: false });
  }
  return { frames, incomplete: null };
}

/**
 * Decode one session log file.
 * @param {string} path
 * @returns {{ header: any, events: any[], frames: number, incomplete: boolean }}
 */
export function readSessionLog(path) {
  if (typeof zlib.zstdDecompressSync !== 'function') {
    throw new Error(`this Node (${process.version}) has no zlib.zstdDecompressSync; run under Node 22.15 or newer`);
  }
  const buf = readFileSync(path);
  const { frames, incomplete } = zstdFrames(buf);
  let text = '';
  for (const frame of frames) {
    if (frame.skippable) continue;
    try {
      text += zlib.zstdDecompressSync(buf.subarray(frame.start, frame.end)).toString('utf8');
    } catch (error) {
      throw new Error(`${path}: the Zstandard frame at byte ${frame.start} does not decode: ${error.message}`);
    }
  }
  if (text.length > 0 && !text.endsWith('\n')) throw new Error(`${path}: the decoded log does not end with a newline`);
  const lines = text.split('\n').slice(0, -1);
  const records = lines.map((line, index) => {
    try { return JSON.parse(line); } catch {
      throw new Error(`${path}: line ${index + 1} is not JSON: ${line.slice(0, 80)}`);
    }
  });
  const [header, ...events] = records;
  return { header, events, frames: frames.length, incomplete: incomplete !== null };
}

/**
 * Structural checks a healthy log passes: a session header first, then
 * events whose `seq` runs 0, 1, 2, … without gaps; no torn trailing frame.
 * @returns {string[]} problems, empty when clean
 */
export function logProblems(log) {
  const problems = [];
  if (log.incomplete) problems.push('the file ends inside a Zstandard frame');
  if (log.header?.type !== 'session') problems.push('the first line is not the session header');
  log.events.forEach((event, index) => {
    if (event.seq !== index) problems.push(`event ${index} has seq ${event.seq}`);
    if (typeof event.type !== 'string') problems.push(`event ${index} has no type`);
  });
  return problems.slice(0, 5);
}

/** Every `session.jsonl.zstd` under a sessions root, with its decoded header. */
export function listSessionLogs(root) {
  const found = [];
  if (!existsSync(root)) return found;
  for (const group of readdirSync(root, { withFileTypes: true })) {
    if (!group.isDirectory()) continue;
    for (const session of readdirSync(join(root, group.name), { withFileTypes: true })) {
      const path = join(root, group.name, session.name, 'session.jsonl.zstd');
      if (!session.isDirectory() || !existsSync(path)) continue;
      found.push({ path, folder: join(group.name, session.name) });
    }
  }
  return found;
}

/** The projected text of a message: its text blocks joined with a newline. */
export function messageText(message) {
  return (message?.content ?? []).filter((block) => block.type === 'text').map((block) => block.text).join('\n');
}
