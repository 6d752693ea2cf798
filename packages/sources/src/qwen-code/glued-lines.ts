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
  let inString = false;
  let start = -1;
  for (let index = 0; index < line.length; index += 1) {
    const char = line.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index += 1;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x7b) {
      if (depth === 0) start = index;
      depth += 1;
    } else if (char === 0x7d && depth > 0) {
      depth -= 1;
      if (depth === 0) found.push(...parsedObject(line.slice(start, index + 1)));
    }
  }
  return found;
}

function parsedObject(text: string): unknown[] {
  try {
    return [JSON.parse(text)];
  } catch {
    return [];
  }
}
