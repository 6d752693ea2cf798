/**
 * JSON whose text holds no literal `<`, so snapshot data can never spell a
 * framing tag such as `</referenced-sessions>`. `<` only occurs inside JSON
 * strings, where `\u003c` is the same character: parsing gives the same value.
 */
export function stringifyTagSafeJson(value: unknown): string {
  const json = JSON.stringify(value);
  if (typeof json !== 'string') throw new TypeError(`value is not JSON-serializable: ${typeof value}`);
  return escapeTagOpeners(json);
}

export function escapeTagOpeners(json: string): string {
  return json.includes('<') ? json.replaceAll('<', '\\u003c') : json;
}
