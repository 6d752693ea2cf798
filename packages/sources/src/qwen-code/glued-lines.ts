import { scanBrackets } from '../json-lines.js';

/**
 * The objects of a line that is not JSON as a whole, as Qwen Code's
 * `recoverObjectsFromLine` (`jsonl-utils.ts`) recovers them: each
 * top-level `{…}` that parses, so two records written onto one line by
 * concurrent appends both count. One pass over the line; the caller has
 * already bounded its nesting.
 */
export function splitGluedObjects(line: string): unknown[] {
  const found: unknown[] = [];
  let depth = 0;
  let start = -1;
  scanBrackets(line, (bracket, index) => {
    if (bracket === 0x7b) {
      if (depth === 0) start = index;
      depth += 1;
    } else if (bracket === 0x7d && depth > 0) {
      depth -= 1;
      if (depth === 0) found.push(...parsedObject(line.slice(start, index + 1)));
    }
    return true;
  });
  return found;
}

function parsedObject(text: string): unknown[] {
  try {
    return [JSON.parse(text)];
  } catch {
    return [];
  }
}
