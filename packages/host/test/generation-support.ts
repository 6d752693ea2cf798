/**
 * What the generation tests share: where the shared samples are, temporary
 * files, zstd framing as dsh does it, and the projection a snapshot makes,
 * through dsh 0.1.0-rc.8's own restore.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KNOWN_SESSION_EVENT_TYPES, Session, interruptedTurnClosers, isSurfaceEvent, type SessionEvent } from '@deepseek-ai/dsh-session';
import { projectConversation } from '@sessref/core';
import { toSurfaceMessage } from '@sessref/dsh';
import type { SessionLogRead } from '@sessref/dsh/log-generations';
import { afterAll } from 'vitest';

/** The shared samples, beside the repository (`../shared`), never copied into it. */
export const SAMPLES = fileURLToPath(new URL('../../../../shared/dsh-log-samples/', import.meta.url));

/** A fresh directory for this test file, removed after it. */
export function scratchDirectory(): (name: string, content: string | Buffer) => string {
  const dir = mkdtempSync(join(tmpdir(), 'sessref-generations-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return (name, content) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
}

/** A maker of fresh directories named after their prefix, all removed after this test file. */
export function temporaryDirectories(): (prefix: string) => string {
  const made: string[] = [];
  afterAll(() => made.forEach((path) => rmSync(path, { recursive: true, force: true })));
  return (prefix) => {
    const path = mkdtempSync(join(tmpdir(), prefix));
    made.push(path);
    return path;
  };
}

export { framePerRecord } from '@sessref/test-support';

/** One projected snapshot item, written `role: text`, `checkpoint: text` for checkpoints. */
export type Line = string;

/**
 * What a snapshot of `read` carries, through rc.8: its persistence's event
 * admission (a known type or `ignorable`), its repair of an open turn, its
 * restore (`Session.fromRestore`, which checks header, envelopes, seqs and
 * the surface), then sessref's projection of the restored surface.
 */
export function projectThroughRc8(read: SessionLogRead): Line[] {
  const unknown = read.events.find((event) => !KNOWN_SESSION_EVENT_TYPES.has(event.type) && event.ignorable !== true);
  if (unknown !== undefined) throw new Error(`rc.8 refuses event type ${unknown.type}`);
  const session = Session.fromRestore(read.header.id, [...read.events, ...interruptedTurnClosers(read.events)], read.header);
  const bySeq = new Map<number, SessionEvent>(session.events.map((event) => [event.seq, event]));
  const surface = session.surface.nodes.map((seq) => bySeq.get(seq)!).filter(isSurfaceEvent);
  return projectConversation(surface.map(toSurfaceMessage)).map(
    (item) => `${item.checkpoint ? 'checkpoint' : item.role}: ${item.text}`,
  );
}

/** The title a listing shows: the latest `session/title`. */
export function titleOf(read: SessionLogRead): string | undefined {
  const titles = read.events.filter((event) => event.type === 'session/title');
  return titles.at(-1)?.data.title;
}

/**
 * A scrubbed upstream snapshot (no `seq`/`time`, `{{…}}` placeholders) made
 * loadable the way its writer wrote it: seqs counted from 0 in line order,
 * time 0, and an absolute cwd in place of the placeholder.
 */
export function unscrub(text: string): string {
  const [header, ...events] = text.trimEnd().split('\n');
  const restored = events.map((line, seq) => JSON.stringify({ ...(JSON.parse(line) as object), seq, time: 0 }));
  return [header!.replace('"{{cwd}}"', '"/scrubbed/cwd"'), ...restored, ''].join('\n');
}
