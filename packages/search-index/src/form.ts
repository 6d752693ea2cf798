/**
 * The search form of a text: what the index matches on, and the one
 * definition of a match. A text's search form is its characters folded one
 * code point at a time (lower case, compatibility forms, Latin, Greek and
 * Cyrillic diacritics and the emoji joiners and modifiers dropped), cut into
 * runs: a run is a word of a spaced script (letters, digits, marks) or a
 * stretch of unspaced text (Han, kana, Hangul, Thai and its neighbours,
 * emoji); runs are separated by one space, whatever separated them (spaces,
 * punctuation, symbols, or only the change from one kind of run to the
 * other). A query matches a text when the query's search form is a
 * substring of the text's.
 *
 * Folding one code point at a time keeps the form context-free, so the form
 * of any substring of a text is a substring of the text's form (up to the
 * run boundaries at its two ends), which is what makes every substring of a
 * carried message find it.
 */

/** Which kind of run a folded character belongs to; `undefined` for a separator. */
type RunKind = 'word' | 'unspaced';

/**
 * The Unicode classes folding tests, made at their first use: V8 builds a
 * property class's ranges when it parses the pattern, which for these takes a
 * fresh process several milliseconds, and text that is ASCII only never needs
 * them (see {@link ASCII}).
 */
let classes: ReturnType<typeof unicodeClasses> | undefined;

function unicodeClasses() {
  const unspaced = '[\\p{scx=Han}\\p{scx=Hiragana}\\p{scx=Katakana}\\p{scx=Hangul}\\p{scx=Thai}\\p{scx=Lao}\\p{scx=Khmer}\\p{scx=Myanmar}\\p{Extended_Pictographic}\\p{Regional_Indicator}]';
  return {
    unspaced: new RegExp(unspaced, 'u'),
    unspacedStart: new RegExp(`^${unspaced}`, 'u'),
    word: /[\p{L}\p{N}\p{M}\p{Co}]/u,
    /** Diacritics dropped from Latin, Greek and Cyrillic letters (accent-insensitive search); other scripts keep their marks, which carry meaning there. */
    alphabetic: /^[\p{scx=Latin}\p{scx=Greek}\p{scx=Cyrillic}]/u,
    marks: /\p{M}/gu,
    /** Marks that belong to no script (combining accents, Arabic harakat, variation selectors), the zero-width joiner and emoji skin tones: dropped wherever they stand. */
    dropped: /^[\p{Script=Inherited}\u200D\p{Emoji_Modifier}]$/u,
  };
}

/** A folded character and the kind of run it belongs to (`undefined`: a separator). */
type Piece = readonly [char: string, kind: RunKind | undefined];

const folded = new Map<number, readonly Piece[]>();

/** One code point folded: compatibility-decomposed, lower-cased, stripped of the marks search ignores; memoized. */
export function foldCodePoint(codePoint: number): readonly Piece[] {
  const cached = folded.get(codePoint);
  if (cached !== undefined) return cached;
  const char = String.fromCodePoint(codePoint);
  const { dropped, alphabetic, marks } = (classes ??= unicodeClasses());
  let text = '';
  if (!dropped.test(char)) {
    // Final sigma lower-cases by context; folded alone it is the plain sigma.
    const lower = (char === 'ς' ? 'σ' : char.toLowerCase()).normalize('NFKD');
    text = (alphabetic.test(lower) ? lower.replace(marks, '') : lower).normalize('NFC');
  }
  const pieces = Array.from(text, (piece): Piece => [piece, kindOf(piece)]);
  folded.set(codePoint, pieces);
  return pieces;
}

function kindOf(char: string): RunKind | undefined {
  const { unspaced, word } = (classes ??= unicodeClasses());
  if (unspaced.test(char)) return 'unspaced';
  return word.test(char) ? 'word' : undefined;
}

/** A search form with, for each of its UTF-16 code units, the span of the original text it came from. */
export interface MappedForm {
  text: string;
  /** Original offset where the character at each form offset starts. */
  starts: number[];
  /** Original offset where it ends. */
  ends: number[];
}

/**
 * The folds of the ASCII code points, looked up without hashing: most text is
 * mostly ASCII. Made by the rule {@link foldCodePoint} comes to for them (an
 * ASCII character lower-cases to one, its letters and digits are words, the
 * rest separate), not by calling it: the Unicode classes it tests take a fresh
 * process several milliseconds to compile, and text that is ASCII only never
 * needs them. A test holds the two to the same table.
 */
export const ASCII: readonly (readonly Piece[])[] = Array.from({ length: 128 }, (_, code) => {
  const char = String.fromCharCode(code).toLowerCase();
  return [[char, /[a-z0-9]/.test(char) ? 'word' : undefined]];
});

/** Takes a folded piece (`kind` undefined: a separator) and the span of the original text it came from. */
type PieceSink = (piece: string, kind: RunKind | undefined, start: number, end: number) => void;

/**
 * The one rule for joining folded pieces into a search form: one space
 * between two runs (where separators stood, or where one kind of run meets
 * the other), none at either end. The space's span covers the separators.
 */
function joinRuns(write: (piece: string, start: number, end: number) => void): PieceSink {
  let previous: RunKind | undefined;
  // Whether separators came since the last piece, and where the first of them started.
  let separated = false;
  let gapStart = 0;
  return (piece, kind, start, end) => {
    if (kind === undefined) {
      if (!separated) gapStart = start;
      separated = true;
      return;
    }
    if (previous !== undefined && (separated || kind !== previous)) write(' ', separated ? gapStart : start, start);
    write(piece, start, end);
    previous = kind;
    separated = false;
  };
}

/** Fold `text` one code point at a time, handing each folded piece to `sink`. */
function foldEach(text: string, sink: PieceSink): void {
  for (let offset = 0; offset < text.length; ) {
    const start = offset;
    const code = text.charCodeAt(offset);
    let pieces: readonly Piece[];
    if (code < 128) {
      pieces = ASCII[code]!;
      offset += 1;
    } else {
      const codePoint = text.codePointAt(offset)!;
      offset += codePoint > 0xffff ? 2 : 1;
      pieces = foldCodePoint(codePoint);
    }
    // A character folded to nothing (a dropped mark) separates nothing.
    for (const [piece, kind] of pieces) sink(piece, kind, start, offset);
  }
}

const NON_ASCII = /[^\0-\x7f]/;
const ASCII_SEPARATORS = /[^a-z0-9]+/g;
/** Alternating stretches of ASCII and of other text. */
const STRETCHES = /[\0-\x7f]+|[^\0-\x7f]+/g;

/** ASCII folds to lower case with every other character a separator: native string operations do it. */
function asciiForm(text: string): string {
  return text.toLowerCase().replace(ASCII_SEPARATORS, ' ');
}

/** The search form of `text`. */
export function searchForm(text: string): string {
  if (!NON_ASCII.test(text)) return asciiForm(text).trim();
  let form = '';
  const sink = joinRuns((piece) => {
    form += piece;
  });
  // Mixed text is mostly ASCII with a name, a quote or an emoji in it: its ASCII stretches
  // fold natively, a word at a time; only the rest goes one code point at a time.
  for (const [stretch] of text.matchAll(STRETCHES)) {
    if (stretch.charCodeAt(0) >= 128) {
      foldEach(stretch, sink);
      continue;
    }
    asciiForm(stretch)
      .split(' ')
      .forEach((word, at) => {
        if (at > 0) sink(' ', undefined, 0, 0);
        if (word !== '') sink(word, 'word', 0, 0);
      });
  }
  return form;
}

/** The search form of `text` with the original span of each of its code units, to map a match back. */
export function mappedForm(text: string): MappedForm {
  return NON_ASCII.test(text) ? foldedMappedForm(text) : asciiMappedForm(text);
}

const ASCII_WORDS = /[a-z0-9]+/gi;

/**
 * {@link mappedForm} of ASCII text, by what folding comes to there (see
 * {@link ASCII}): its letter and digit runs, lower-cased, one space between
 * two of them spanning the separators. A hit's message is mapped this way
 * on every search, and most are ASCII only.
 */
function asciiMappedForm(text: string): MappedForm {
  let form = '';
  const starts: number[] = [];
  const ends: number[] = [];
  let runEnd: number | undefined;
  for (const { 0: run, index } of text.matchAll(ASCII_WORDS)) {
    if (runEnd !== undefined) {
      form += ' ';
      starts.push(runEnd);
      ends.push(index);
    }
    form += run.toLowerCase();
    for (let unit = index; unit < index + run.length; unit += 1) {
      starts.push(unit);
      ends.push(unit + 1);
    }
    runEnd = index + run.length;
  }
  return { text: form, starts, ends };
}

/** {@link mappedForm} one code point at a time: the rule itself, for text that is not ASCII only. */
export function foldedMappedForm(text: string): MappedForm {
  const pieces: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  foldEach(
    text,
    joinRuns((piece, start, end) => {
      pieces.push(piece);
      for (let unit = 0; unit < piece.length; unit += 1) {
        starts.push(start);
        ends.push(end);
      }
    }),
  );
  return { text: pieces.join(''), starts, ends };
}

/** The runs of a search form, in order. */
export function runsOf(form: string): string[] {
  return form === '' ? [] : form.split(' ');
}

/** Whether a run of a search form is unspaced text (runs are of one kind, so its first character says; no ASCII one is unspaced). */
export function isUnspaced(run: string): boolean {
  return run.charCodeAt(0) >= 128 && (classes ??= unicodeClasses()).unspacedStart.test(run);
}

/**
 * The index tokens of one run: a word is one token; an unspaced run of
 * characters c1…cn is its overlapping pairs c1c2 … c(n-1)cn followed by cn
 * alone, so that every substring of two or more characters is a phrase of
 * consecutive tokens, and a single character is the prefix of a token.
 */
export function runTokens(run: string): string[] {
  if (!isUnspaced(run)) return [run];
  // Code points: an emoji is one character, two UTF-16 units.
  const chars = Array.from(run);
  return chars.map((char, index) => (index + 1 < chars.length ? `${char}${chars[index + 1]}` : char));
}

/** The index tokens of a whole search form. */
export function formTokens(form: string): string[] {
  return runsOf(form).flatMap(runTokens);
}
