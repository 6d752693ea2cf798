/**
 * Discovery corpus: `count` sessions of `messages` (default 40) alternating
 * ~200-char messages and one user title each, written through the real JSONL
 * persistence (zstd) into `root`. Roots are cached: a completed root carries
 * a marker file and is reused as is; an interrupted one is rebuilt.
 *
 * Args: --root DIR --count N [--messages M]  (M even: whole exchanges)
 */
import { existsSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSession, setTitle } from '@sessref/host';
import { bootHost, writeConversation } from '../host.mjs';
import { emitResult, parseArgs, progress } from '../lib/child.mjs';
import { prose, random } from '../lib/text.mjs';

/** Titles rotate over these topics; the non-empty query matches one of five. */
const TOPICS = ['parser', 'migration', 'deploy', 'review', 'cache'];
/** Three working directories, so cwd ranking has groups to order. */
const CWDS = ['/work/project-0', '/work/project-1', '/work/project-2'];
const MARKER = '.sessref-bench-complete';

const { root, count: countArg, messages: messagesArg = '40' } = parseArgs();
const count = Number(countArg);
const messages = Number(messagesArg);
if (!Number.isInteger(messages) || messages < 0 || messages % 2 !== 0) throw new Error(`--messages must be an even count, got ${messagesArg}`);

if (existsSync(join(root, MARKER))) {
  progress(`discovery corpus of ${count} sessions: reusing ${root}`);
  emitResult({ root, count, messages, reused: true, bytes: directoryBytes(root) });
} else {
  const building = `${root}.partial`;
  rmSync(building, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
  progress(`discovery corpus of ${count} sessions x ${messages} messages: writing ${root} (cached for later runs)`);
  const start = performance.now();
  await writeCorpus(building, count);
  writeFileSync(join(building, MARKER), `${count} sessions x ${messages} messages\n`);
  renameSync(building, root);
  emitResult({ root, count, messages, reused: false, writeMs: performance.now() - start, bytes: directoryBytes(root) });
}

async function writeCorpus(directory, sessions) {
  // No title index while writing: nothing queries this host.
  const host = await bootHost({ impl: 'sessref', root: directory, titleIndex: false });
  const next = random(sessions);
  const progressEvery = sessions >= 5000 ? 1000 : 250;
  for (let index = 0; index < sessions; index += 1) {
    const session = createSession(host, {
      id: `bench-${String(index).padStart(5, '0')}`,
      cwd: CWDS[index % CWDS.length],
      createdAt: 1_700_000_000_000 + index * 1000,
    });
    writeConversation(session, messages, (message) => prose(next, 200, `message ${message}:`));
    setTitle(session, `${TOPICS[index % TOPICS.length]} task ${index}`);
    await host.sessions.flush(session);
    if ((index + 1) % progressEvery === 0) progress(`  ${index + 1}/${sessions} sessions written`);
  }
  await host.dispose();
}

function directoryBytes(directory) {
  let total = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}
