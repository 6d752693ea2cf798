/**
 * The demo root beside a home holding one real Claude Code transcript (from
 * `../shared`) at Claude Code's default place: what the suites about another
 * agent's session next to dsh's start from.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emptyRoot, ok, requireBuild, tempDir } from './support';

const NATIVE_ID = 'ae4a77f8-aedd-4bc1-888f-c94edc91af04';
/** The transcript's session id as sessref names it, 48 characters long. */
export const CLAUDE_ID = `claude-code:${NATIVE_ID}`;
const SAMPLE = fileURLToPath(new URL(`../../../../shared/cross-harness-samples/claude-code/spotter/${NATIVE_ID}.jsonl`, import.meta.url));

/** A seeded demo root and a home with the transcript (the built binary seeds the root). */
export async function demoRootAndClaudeHome(): Promise<{ root: string; home: string }> {
  requireBuild();
  const root = await emptyRoot();
  await ok(['seed', '--root', root]);
  const home = await tempDir('sessref-claude-home-');
  mkdirSync(join(home, '.claude', 'projects', '-work-app'), { recursive: true });
  copyFileSync(SAMPLE, join(home, '.claude', 'projects', '-work-app', `${NATIVE_ID}.jsonl`));
  return { root, home };
}
