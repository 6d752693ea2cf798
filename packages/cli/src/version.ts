import { readFileSync } from 'node:fs';

/** sessref's version, as its package.json says (one level above both src/ and dist/): what `--version` prints and `sessref mcp` announces. */
export function packageVersion(): string {
  const manifest: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return (manifest as { version: string }).version;
}
