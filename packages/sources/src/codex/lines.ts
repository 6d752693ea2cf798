/** One line of a JSONL file, without its newline. */
export interface Line {
  text: string;
  /** 1-based, as editors and error messages count lines. */
  number: number;
  /** Whether a newline ended it: only the last line of a file may lack one (a write in progress). */
  complete: boolean;
}

/**
 * The lines of `text`, one at a time, so a transcript of millions of records
 * is never held twice (as a list of lines and as records).
 */
export function* linesOf(text: string): Generator<Line> {
  let start = 0;
  for (let number = 1; start < text.length; number += 1) {
    const newline = text.indexOf('\n', start);
    if (newline < 0) {
      yield { text: text.slice(start), number, complete: false };
      return;
    }
    yield { text: text.slice(start, newline), number, complete: true };
    start = newline + 1;
  }
}
