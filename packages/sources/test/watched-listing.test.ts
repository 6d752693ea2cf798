/**
 * Listing with the agents' folders watched: after any sequence of what the
 * agents (and their users) do to their folders, a watched source lists
 * exactly what a source that walks and stats everything lists; and once its
 * folders are followed, a listing with nothing new discovers nothing, one
 * after an append stats and reads that transcript alone.
 */
import { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeCodeFormat, codexFormat, geminiCliFormat, transcriptSource, type TranscriptFormat } from '@sessref/sources';
import { PROCESS_LISTINGS } from '@sessref/platform';
import { listing } from './support.js';

const scratch = mkdtempSync(join(tmpdir(), 'sessref-watched-listing-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const FORMATS = [claudeCodeFormat, codexFormat, geminiCliFormat];
const jsonl = (...records: unknown[]): string => records.map((record) => `${JSON.stringify(record)}\n`).join('');
const uuid = (n: number) => `0000000${n}-0000-4000-8000-000000000000`;
const time = (n: number) => new Date(Date.UTC(2026, 0, 2, 10, n)).toISOString();

const claudeSession = (n: number, title: string): string =>
  jsonl(
    { type: 'user', uuid: 'u1', parentUuid: null, sessionId: uuid(n), cwd: `/work/c${n}`, timestamp: time(n), message: { role: 'user', content: `prompt ${n}` } },
    { type: 'assistant', uuid: 'a1', parentUuid: 'u1', sessionId: uuid(n), timestamp: time(n), message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: `reply ${n}` }] } },
    { type: 'custom-title', customTitle: title },
  );
const codexRecord = (type: string, payload: object) => ({ timestamp: time(0), type, payload });
const codexMessage = (role: string, text: string) => codexRecord('response_item', { type: 'message', role, content: [{ type: role === 'user' ? 'input_text' : 'output_text', text }] });
const codexSession = (n: number): string =>
  jsonl(codexRecord('session_meta', { id: uuid(n), timestamp: time(n), cwd: `/work/x${n}`, cli_version: '0.146.0' }), codexMessage('user', `prompt ${n}`), codexMessage('assistant', `answer ${n}`));
const geminiSession = (n: number): string =>
  jsonl(
    { sessionId: uuid(n), projectHash: 'f'.repeat(64), startTime: time(n), lastUpdated: time(n), kind: 'main' },
    { id: 'u1', type: 'user', timestamp: time(n), content: [{ text: `prompt ${n}` }] },
    { id: 'a1', type: 'gemini', timestamp: time(n), content: `answer ${n}` },
  );

/** What the agents, and their users, do to the folders sessref reads. */
type Step =
  | { kind: 'claude-write'; project: number; session: number }
  | { kind: 'claude-retitle'; project: number; session: number; title: string }
  | { kind: 'claude-replace'; project: number; session: number }
  | { kind: 'claude-delete'; project: number; session: number }
  | { kind: 'codex-write'; day: number; session: number }
  | { kind: 'codex-name'; session: number; name: string }
  | { kind: 'gemini-write'; project: number; session: number }
  | { kind: 'gemini-root'; project: number; cwd: string };

const small = fc.integer({ min: 1, max: 3 });
const word = fc.stringMatching(/^[a-z]{1,8}$/);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('claude-write' as const), project: small, session: small }),
  fc.record({ kind: fc.constant('claude-retitle' as const), project: small, session: small, title: word }),
  fc.record({ kind: fc.constant('claude-replace' as const), project: small, session: small }),
  fc.record({ kind: fc.constant('claude-delete' as const), project: small, session: small }),
  fc.record({ kind: fc.constant('codex-write' as const), day: small, session: small }),
  fc.record({ kind: fc.constant('codex-name' as const), session: small, name: word }),
  fc.record({ kind: fc.constant('gemini-write' as const), project: small, session: small }),
  fc.record({ kind: fc.constant('gemini-root' as const), project: small, cwd: word }),
);

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** Apply `step` to the home at `home`; a step on a file that is not there does nothing. */
function apply(home: string, step: Step): void {
  const claude = (project: number, session: number) => join(home, '.claude', 'projects', `-work-p${project}`, `${uuid(session)}.jsonl`);
  const gemini = (project: number) => join(home, '.gemini', 'tmp', `project-${project}`);
  const exists = (path: string) => {
    try {
      appendFileSync(path, '', { flag: 'r+' });
      return true;
    } catch {
      return false;
    }
  };
  switch (step.kind) {
    case 'claude-write':
      return write(claude(step.project, step.session), claudeSession(step.session, `Session ${step.session}`));
    case 'claude-retitle':
      if (exists(claude(step.project, step.session))) appendFileSync(claude(step.project, step.session), jsonl({ type: 'custom-title', customTitle: step.title }));
      return;
    case 'claude-replace': {
      const path = claude(step.project, step.session);
      if (!exists(path)) return;
      writeFileSync(`${path}.tmp`, claudeSession(step.session, `Replaced ${step.session}`));
      return renameSync(`${path}.tmp`, path);
    }
    case 'claude-delete':
      return rmSync(claude(step.project, step.session), { force: true });
    case 'codex-write':
      return write(join(home, '.codex', 'sessions', '2026', '01', `0${step.day}`, `rollout-2026-01-0${step.day}T10-00-00-${uuid(step.session)}.jsonl`), codexSession(step.session));
    case 'codex-name':
      mkdirSync(join(home, '.codex'), { recursive: true });
      return appendFileSync(join(home, '.codex', 'session_index.jsonl'), jsonl({ id: uuid(step.session), thread_name: step.name, updated_at: time(0) }));
    case 'gemini-write':
      return write(join(gemini(step.project), 'chats', `session-2026-01-02T10-0${step.session}-${uuid(step.session).slice(0, 8)}.jsonl`), geminiSession(step.session));
    case 'gemini-root':
      return write(join(gemini(step.project), '.project_root'), `/work/${step.cwd}\n`);
  }
}

let homes = 0;
function newHome(): string {
  const home = join(scratch, `home-${(homes += 1)}`);
  for (const folder of ['.claude/projects', '.codex/sessions', '.gemini/tmp']) mkdirSync(join(home, folder), { recursive: true });
  return home;
}

describe('a watched listing', () => {
  it('lists what a full walk lists after any sequence of changes to the agents\' folders', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const home = newHome();
        const environment = { home, env: {} };
        const watched = FORMATS.map((format) => transcriptSource(format, { environment }));
        try {
          for (const next of steps) {
            apply(home, next);
            for (const [index, format] of FORMATS.entries()) {
              const walked = transcriptSource(format, { environment, watch: false });
              expect(await listing(watched[index]!)).toEqual(await listing(walked));
            }
          }
        } finally {
          for (const source of watched) source.close();
        }
      }),
      { numRuns: 40 },
    );
  });

  it('discovers nothing when nothing changed, and stats and reads only the transcript that grew', async () => {
    const home = newHome();
    for (const session of [1, 2, 3]) apply(home, { kind: 'claude-write', project: 1, session });
    const counted = countedClaudeCode();
    const { reads } = counted;
    const source = transcriptSource(counted.format, { environment: { home, env: {} } });
    try {
      // The first listing walks; the folder was just written, so the second walks once more to be sure no change slipped past the new watch.
      await listing(source);
      await listing(source);
      const [before, readBefore] = [counted.discoveries, reads.length];
      await listing(source);
      expect([counted.discoveries - before, reads.length - readBefore]).toEqual([0, 0]);

      apply(home, { kind: 'claude-retitle', project: 1, session: 2, title: 'Renamed' });
      const grown = (await listing(source)) as { titles: string[] };
      expect(grown.titles).toContain('Claude Code · Renamed');
      expect([counted.discoveries - before, reads.slice(readBefore)]).toEqual([0, [uuid(2)]]);

      // A new session is a name new to a listed folder: the next listing discovers it.
      apply(home, { kind: 'claude-write', project: 1, session: 4 });
      expect(((await listing(source)) as { headers: unknown[] }).headers).toHaveLength(4);
      expect(counted.discoveries - before).toBe(1);
    } finally {
      source.close();
    }
  });

  it('looks once under a hold of the process\'s listings (a run that only reads), watching nothing, and follows again once it is let go', async () => {
    const home = newHome();
    apply(home, { kind: 'claude-write', project: 1, session: 1 });
    const counted = countedClaudeCode();
    const source = transcriptSource(counted.format, { environment: { home, env: {} } });
    try {
      const letGo = PROCESS_LISTINGS.holdFirstLook();
      const first = await source.listSessions();
      apply(home, { kind: 'claude-write', project: 2, session: 2 });
      // The first look answers the whole run: the session written meanwhile is not in it, and nothing was walked again.
      expect(await source.listSessions()).toEqual(first);
      expect(counted.discoveries).toBe(1);
      letGo();
      expect((await source.listSessions()).length).toBe(first.length + 1);
      expect(counted.discoveries).toBe(2);
      // Followed from then on (the folder was just written, so the next listing walks once more to be sure): then nothing new discovers nothing.
      await source.listSessions();
      const settled = counted.discoveries;
      await source.listSessions();
      expect(counted.discoveries).toBe(settled);
    } finally {
      source.close();
    }
  });

  it('walks every time once closed', async () => {
    const home = newHome();
    apply(home, { kind: 'claude-write', project: 1, session: 1 });
    const counted = countedClaudeCode();
    const source = transcriptSource(counted.format, { environment: { home, env: {} } });
    source.close();
    for (let run = 0; run < 3; run += 1) await listing(source);
    expect(counted.discoveries).toBe(3);
  });
});

/** Claude Code's format counting its discoveries (walks of its folders) and naming each transcript it decodes. */
function countedClaudeCode(): { format: TranscriptFormat; readonly discoveries: number; reads: string[] } {
  const counted = {
    discoveries: 0,
    reads: [] as string[],
    format: {
      ...claudeCodeFormat,
      transcripts: (environment, trail) => {
        counted.discoveries += 1;
        return claudeCodeFormat.transcripts(environment, trail);
      },
      decode: (bytes, file) => {
        counted.reads.push(file.nativeId);
        return bytes.toString('utf8');
      },
    } satisfies TranscriptFormat,
  };
  return counted;
}
