/**
 * Suite 3 child: parseSessionReferenceText() throughput, ours (@sessref/core)
 * and the official one, on ~10 MB of prose with a mention every ~200 chars,
 * and on 1 MB adversarial inputs compared with 1 MB of that prose.
 *
 * An implementation that is quadratic on an input would take minutes at
 * 1 MB, so every input is run on a ladder of sizes (16 KiB, 64 KiB, 256 KiB,
 * 1 MiB): a size whose time, extrapolated with the exponent measured on the
 * previous two rungs (at least linear), would exceed STEP_BUDGET_MS is
 * skipped and its extrapolation reported instead.
 */
import { parseSessionReferenceText as officialParse } from '@deepseek-ai/dsh-session-reference';
import { formatSessionReferenceMention, parseSessionReferenceText as oursParse } from '@sessref/core';
import { emitResult, progress } from '../lib/child.mjs';
import { measureSync, scalingExponent } from '../lib/stats.mjs';
import { prose, random } from '../lib/text.mjs';

const PARSERS = { sessref: oursParse, official: officialParse };
const PROSE_BYTES = 10_000_000;
const MENTION_EVERY = 200;
const LADDER = [16 * 1024, 64 * 1024, 256 * 1024, 1024 * 1024];
const STEP_BUDGET_MS = 5_000;
const THROUGHPUT_RUNS = { warmup: 3, minRuns: 12, minMs: 1_500 };

/** Prose with one canonical mention per ~MENTION_EVERY chars (ASCII, so chars = bytes). */
function mentionProse(length) {
  const next = random(7);
  const parts = [];
  let size = 0;
  for (let index = 0; size < length; index += 1) {
    const mention = formatSessionReferenceMention({ sessionId: `session-${index}-${Math.floor(next() * 1e9)}`, label: `notes ${index}` });
    const filler = prose(next, MENTION_EVERY - mention.length);
    parts.push(filler, mention);
    size += filler.length + mention.length + 2;
  }
  return parts.join(' ').slice(0, length);
}

/** 1 MB inputs built to make a naive scanner restart at every position. */
const ADVERSARIAL = {
  "'@['.repeat": (length) => '@['.repeat(length / 2),
  "'\\\\'.repeat": (length) => '\\'.repeat(length),
  "'](dsh-session:'.repeat": (length) => '](dsh-session:'.repeat(Math.ceil(length / 14)).slice(0, length),
  // Every construct at random, but never a complete mention: there is no `)`
  // and no piece starts with a base64url character, so no URI is ever decoded
  // (a complete but malformed one rejects by contract, ending the scan early).
  mixed: (length) => {
    const pieces = ['@[', '\\', '](dsh-session:', ']', '(', '@', '[', '.', ' ', '\n'];
    const next = random(11);
    const parts = [];
    for (let size = 0; size < length; ) {
      const piece = pieces[Math.floor(next() * pieces.length)];
      parts.push(piece);
      size += piece.length;
    }
    return parts.join('').slice(0, length);
  },
};

/**
 * One parse of `text`: `ms` is main-thread CPU time (see lib/stats.mjs), `wallMs` wall time.
 * Reading one character of the result makes the engine materialize it, so an
 * implementation that returns a lazily concatenated string pays for it here too.
 */
function parseTime(parse, text, runs = { minRuns: 3, minMs: 200 }) {
  const { cpuMs, wallMs } = measureSync(() => parse(text).text.charCodeAt(text.length >> 1), runs);
  return { ms: cpuMs, wallMs };
}

/**
 * Time `parse` on `build(size)` up the ladder; stop before a rung whose wall
 * time is predicted to exceed the budget and report the prediction instead.
 */
function ladder(parse, build) {
  const rungs = [];
  for (const size of LADDER) {
    if (rungs.length > 0) {
      const last = rungs[rungs.length - 1];
      const exponent = rungs.length > 1 ? Math.max(1, scalingExponent(rungs[rungs.length - 2], last)) : 1;
      const predicted = last.wallMs * (size / last.size) ** exponent;
      if (predicted > STEP_BUDGET_MS) return { rungs, skipped: { size, exponent } };
    }
    rungs.push({ size, ...parseTime(parse, build(size)) });
  }
  return { rungs };
}

const result = { proseBytes: PROSE_BYTES, mentionEvery: MENTION_EVERY, prose: {}, adversarial: {} };

progress(`parse: building ${PROSE_BYTES / 1e6} MB of prose with a mention every ~${MENTION_EVERY} chars`);
const text = mentionProse(PROSE_BYTES);
for (const [impl, parse] of Object.entries(PARSERS)) {
  progress(`parse: ${impl} on ${PROSE_BYTES / 1e6} MB of prose`);
  // The headline figure: warmed up and averaged over many runs, since garbage collection
  // lands in some runs and not others.
  const { ms: cpuMs, wallMs } = parseTime(parse, text, THROUGHPUT_RUNS);
  result.prose[impl] = {
    cpuMs,
    wallMs,
    mbPerSecond: PROSE_BYTES / 1e6 / (cpuMs / 1000),
    wallMBPerSecond: PROSE_BYTES / 1e6 / (wallMs / 1000),
    references: parse(text).references.length,
  };
}

const inputs = { 'prose, 1 MiB slice': (length) => text.slice(0, length), ...ADVERSARIAL };
for (const [name, build] of Object.entries(inputs)) {
  result.adversarial[name] = {};
  for (const [impl, parse] of Object.entries(PARSERS)) {
    progress(`parse: ${impl} on ${name}`);
    result.adversarial[name][impl] = ladder(parse, build);
  }
}

emitResult(result);
