/**
 * What the generation reader does with damaged and hostile files: a coded
 * refusal (never an uncoded crash, a hang or a partial result), or the
 * committed prefix with the torn tail reported.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { constants, zstdCompressSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SessionLogReadError, readSessionLog, type ReadLimits, type SessionLogReadCode } from '@sessref/dsh/log-generations';
import { SAMPLES, framePerRecord, scratchDirectory } from './generation-support.js';
import { writeGeneration } from '@sessref/test-support';

const write = scratchDirectory();
let files = 0;

const LOG = writeGeneration(3, [
  { kind: 'exchange', user: 'hello', assistant: 'hi', tool: 'out' },
  { kind: 'exchange', user: 'again', assistant: 'sure' },
]);
const HEADER = LOG.slice(0, LOG.indexOf('\n') + 1);

function refusal(content: string | Buffer, generation = 3, limits?: Partial<ReadLimits>): SessionLogReadCode {
  try {
    readSessionLog(write(`hostile-${(files += 1)}`, content), generation, limits);
  } catch (error) {
    if (error instanceof SessionLogReadError) return error.code;
    throw error;
  }
  throw new Error('read, not refused');
}

describe('budgets', () => {
  it('refuses a line over the line budget, committed or torn', () => {
    const huge = `{"type":"turn/start","seq":0,"time":0,"data":{"turn":1,"pad":"${'x'.repeat(4096)}"}}`;
    expect(refusal(`${HEADER}${huge}\n`, 3, { maxLineBytes: 1024 })).toBe('SESSION_LOG_LINE_TOO_LONG');
    expect(refusal(`${HEADER}${huge}`, 3, { maxLineBytes: 1024 })).toBe('SESSION_LOG_LINE_TOO_LONG');
  });

  it('refuses a file over the file budget and frames over the plaintext budget', () => {
    expect(refusal(LOG, 3, { maxFileBytes: 100 })).toBe('SESSION_LOG_TOO_LARGE');
    expect(refusal(framePerRecord(LOG), 3, { maxPlaintextBytes: 300 })).toBe('SESSION_LOG_TOO_LARGE');
  });

  describe('a decompression bomb (#37 item 1)', () => {
    const MIB = 1024 * 1024;
    const compress = (text: string) => zstdCompressSync(Buffer.from(text), { params: { [constants.ZSTD_c_checksumFlag]: 1 } });
    /** A healthy log's header frame, then lines of valid user messages of 8 MiB each, `count` of them: a few KiB on disk. */
    function messageBomb(count: number, framing: 'one frame' | 'frame per line'): Buffer {
      const lines = LOG.trimEnd().split('\n');
      const big = 'a'.repeat(8 * MIB);
      const bomb = Array.from({ length: count }, (_, index) => {
        const seq = lines.length - 1 + index;
        return `${JSON.stringify({ type: 'user/message', seq, time: seq, data: { id: `u${seq}`, role: 'user', content: [{ type: 'text', text: big }], source: { kind: 'user' } }, surfaceOp: 'append' })}\n`;
      });
      const body = framing === 'one frame' ? [compress(bomb.join(''))] : bomb.map(compress);
      return Buffer.concat([framePerRecord(`${lines.join('\n')}\n`), ...body]);
    }

    it('refuses a few KiB of frames that stand for more plaintext than its size allows, in one frame or many', () => {
      for (const framing of ['one frame', 'frame per line'] as const) {
        const bomb = messageBomb(6, framing);
        expect(bomb.length).toBeLessThan(64 * 1024);
        expect(() => readSessionLog(write(`bomb-${framing}`, bomb), 3)).toThrow(
          expect.objectContaining({ code: 'SESSION_LOG_TOO_LARGE', message: expect.stringMatching(/decompress to more than the 32 MiB of plaintext a log of its size may hold/) }),
        );
      }
    });

    it('stops a GiB of run-length blocks at the budget instead of decompressing them', () => {
      // One frame of 8,192 run-length blocks of 128 KiB of newlines (1 GiB), a 1 MiB window, no checksum: 32 KiB on disk.
      const header = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 10 << 3]);
      const blocks = Buffer.alloc(8192 * 4);
      for (let index = 0; index < 8192; index += 1) {
        blocks.writeUIntLE(((index === 8191 ? 1 : 0) | (1 << 1) | ((128 * 1024) << 3)) >>> 0, index * 4, 3);
        blocks[index * 4 + 3] = 10;
      }
      const bomb = Buffer.concat([framePerRecord(HEADER), header, blocks]);
      const started = process.memoryUsage.rss();
      expect(refusal(bomb)).toBe('SESSION_LOG_TOO_LARGE');
      // The budget (32 MiB) and the decoder's window, far from the 1 GiB the frame stands for.
      expect(process.memoryUsage.rss() - started).toBeLessThan(256 * MIB);
    });

    it('still reads a log whose plaintext is within the budget', () => {
      expect(readSessionLog(write('under-budget', messageBomb(3, 'one frame')), 3).events.length).toBeGreaterThan(3);
    });
  });

  it('refuses nesting deeper than any dsh record, but not brackets inside strings', () => {
    const depth = 100_000;
    expect(refusal(`${HEADER}${'['.repeat(depth)}${']'.repeat(depth)}\n`)).toBe('SESSION_LOG_TOO_DEEP');
    const bracketText = writeGeneration(3, [{ kind: 'exchange', user: '[[[{{{\\"'.repeat(200), assistant: 'ok' }]);
    expect(readSessionLog(write('brackets', bracketText), 3).events.length).toBeGreaterThan(0);
  });

  it('draws the line at 512 levels, whatever strings with brackets, quotes and escapes sit inside', () => {
    const tricky = fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', 'a', ' '), maxLength: 40 });
    fc.assert(
      fc.property(fc.integer({ min: 505, max: 520 }), tricky, (depth, text) => {
        // JSON around a string: the string's brackets and escaped quotes never count.
        const line = `${'['.repeat(depth)}${JSON.stringify(text)}${']'.repeat(depth)}\n`;
        const code = depth > 512 ? 'SESSION_LOG_TOO_DEEP' : 'SESSION_LOG_CORRUPT';
        // A value that is not an event is corrupt when shallow enough to be read: the depth check came first or not at all.
        expect(refusal(`${HEADER}${line}`)).toBe(code);
      }),
      { numRuns: 60 },
    );
  });
});

describe('files that are not logs', () => {
  it('refuses what is missing, a directory and a FIFO, without waiting', () => {
    const dir = write('placeholder', '').replace(/placeholder$/, 'a-directory');
    mkdirSync(dir);
    const fifo = write('placeholder', '').replace(/placeholder$/, 'a-fifo');
    execFileSync('mkfifo', [fifo]);
    for (const path of [`${dir}/missing`, dir, fifo]) {
      expect(() => readSessionLog(path, 0)).toThrow(expect.objectContaining({ code: 'SESSION_LOG_UNREADABLE' }));
    }
  });

  it('refuses a log without a complete header line', () => {
    expect(refusal('')).toBe('SESSION_LOG_NO_HEADER');
    expect(refusal(HEADER.slice(0, 20))).toBe('SESSION_LOG_NO_HEADER');
    expect(refusal(framePerRecord(HEADER).subarray(0, 10))).toBe('SESSION_LOG_NO_HEADER');
  });

  it.each([
    'projcache/fork-fixtures/v3-single-unit.json',
    'projcache/fork-fixtures/v4-session-doc.json',
    'projcache/fork-fixtures/v5-session-doc.json',
    'multi-generation/fork-vfs-example/home/storages/session_projcache.json',
  ])('refuses the shared projection-cache file %s, which is not a log (its first line is not JSON)', (file) => {
    expect(() => readSessionLog(join(SAMPLES, file), 0)).toThrow(expect.objectContaining({ code: 'SESSION_LOG_CORRUPT' }));
  });
});

describe('zstd framing', () => {
  const frames = framePerRecord(LOG);

  it('refuses a wrong magic, first or later', () => {
    const first = Buffer.from(frames);
    first.writeUInt32LE(0xfd2fb527, 0);
    expect(refusal(first)).toBe('SESSION_LOG_CORRUPT');
    const later = Buffer.concat([framePerRecord(HEADER), Buffer.from('{"type":"turn/start"}\n')]);
    expect(refusal(later)).toBe('SESSION_LOG_CORRUPT');
  });

  it('refuses a reserved frame-header bit and a bad checksum in the committed prefix', () => {
    const reserved = Buffer.from(frames);
    reserved[4] = reserved[4]! | 0x08;
    expect(refusal(reserved)).toBe('SESSION_LOG_CORRUPT');
    const header = framePerRecord(HEADER);
    const flipped = Buffer.concat([header, frames.subarray(header.length)]);
    flipped[header.length - 1] = flipped[header.length - 1]! ^ 0xff;
    expect(refusal(flipped)).toBe('SESSION_LOG_CORRUPT');
  });

  it('refuses a header frame holding more than the header line', () => {
    const firstTwo = LOG.split(/(?<=\n)/).slice(0, 2).join('');
    expect(refusal(zstdCompressSync(Buffer.from(firstTwo)))).toBe('SESSION_LOG_CORRUPT');
    expect(readSessionLog(write('header-only', framePerRecord(HEADER)), 3).events).toEqual([]);
  });

  it('cut anywhere, gives the committed prefix with the torn frame reported, or no header', () => {
    const complete = readSessionLog(write('complete.zstd', frames), 3).events;
    const boundaries = new Set(LOG.split(/(?<=\n)/).map((_, index, lines) => framePerRecord(lines.slice(0, index + 1).join('')).length));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: frames.length - 1 }), (cut) => {
        let read;
        try {
          read = readSessionLog(write(`cut-${(files += 1)}`, frames.subarray(0, cut)), 3);
        } catch (error) {
          expect(error).toMatchObject({ code: 'SESSION_LOG_NO_HEADER' });
          return;
        }
        expect(read.torn?.unit).toBe(boundaries.has(cut) ? undefined : 'frame');
        expect(complete.slice(0, read.events.length)).toEqual(read.events);
      }),
      { numRuns: 80 },
    );
  });
});

describe('the committed prefix', () => {
  it('refuses a seq gap and a line that is not JSON before the last', () => {
    const lines = LOG.split('\n');
    expect(refusal([lines[0], lines[2], ''].join('\n'))).toBe('SESSION_LOG_CORRUPT');
    expect(refusal([lines[0], lines[1], '{not json', lines[2], ''].join('\n'))).toBe('SESSION_LOG_CORRUPT');
  });

  it('refuses headers their generation does not allow', () => {
    expect(refusal(LOG.replace('"delegationDepth":0', '"delegationDepth":0,"extra":1'))).toBe('SESSION_LOG_HEADER_INVALID');
    expect(refusal(LOG.replace('"isSeeded":false', '"isSeeded":true'))).toBe('SESSION_LOG_HEADER_INVALID');
    expect(refusal(LOG.replace('"cwd":"/work"', '"cwd":"work"'))).toBe('SESSION_LOG_HEADER_INVALID');
    expect(refusal(writeGeneration(0, []).replace('"delegationDepth":0', '"delegationDepth":0,"sandboxMode":"x"'), 0)).toBe('SESSION_LOG_HEADER_INVALID');
  });

  it('takes the inherited cut of a seeded v2+ log from its last tagged end-seed marker', () => {
    const cut = LOG.trimEnd().split('\n').length - 1;
    const seeded = `${LOG.replace('"isSeeded":false', '"isSeeded":true')}{"type":"session/end-seed","seq":${cut},"time":0,"data":{"inherited":true}}\n`;
    const read = readSessionLog(write('seeded', seeded), 3);
    expect(read.header.seedLength).toBe(cut);
    expect(read.events.at(-1)).toEqual({ type: 'session/end-seed', seq: cut, time: 0, data: {} });
  });

  it('refuses a replacement rc.8 cannot place', () => {
    // v3: a system message replacing the user message.
    const lines = LOG.trimEnd().split('\n');
    const userSeq = (JSON.parse(lines.find((line) => line.includes('"user/message"'))!) as { seq: number }).seq;
    const next = lines.length - 1;
    const bad = `{"type":"system/message","seq":${next},"time":0,"data":{"turn":2,"step":1,"message":{"id":"s","role":"system","content":[],"source":{"kind":"plugin","plugin":"x"}}},"surfaceOp":{"op":"replace","startSeq":${userSeq},"endSeq":${userSeq}},"sourceEventSeqs":[${userSeq}]}`;
    expect(refusal(`${LOG}${bad}\n`)).toBe('SESSION_LOG_UNSUPPORTED');
  });

  it('refuses unknown generations by name', () => {
    for (const generation of [5, 17]) {
      expect(() => readSessionLog(write('unknown', LOG), generation)).toThrow(`written by a dsh newer than sessref knows: v${generation}`);
    }
    expect(refusal(LOG, -1)).toBe('SESSION_LOG_VERSION_UNKNOWN');
  });
});

describe('any bytes at all', () => {
  it('are read or refused with a code, plain or behind a zstd magic', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.boolean(), fc.constantFrom(0, 2, 3, 4), (bytes, magic, generation) => {
        const content = magic ? Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), bytes]) : Buffer.from(bytes);
        try {
          readSessionLog(write(`bytes-${(files += 1)}`, content), generation);
        } catch (error) {
          expect(error).toBeInstanceOf(SessionLogReadError);
        }
      }),
      { numRuns: 200 },
    );
  });
});
