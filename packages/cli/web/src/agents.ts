/**
 * Other agents' sessions in the page (Claude Code, Codex, …: every agent
 * the server reads): listed and citable like dsh sessions, named by their
 * agent (the title the server gives them starts with it, `Codex · Start`), and
 * read-only: sessref reads them in place and never writes to them, so the
 * page never sends or previews into one; a dsh session cites them.
 */
import type { SessionItem, SessionSource } from '../../src/server/protocol.js';
import { h } from './dom.js';

/** Whether the page may write into this session (send, preview a send): only the root's own dsh sessions. */
export function isWritable(session: SessionSource | undefined): boolean {
  return session !== undefined && session.agent === undefined;
}

/** Why a session of `agent` cannot be the target of a message. */
function readOnlyNote(agent: string): string {
  return `A ${agent} session, read in place: cite it from a dsh session with @. sessref never writes to it.`;
}

/**
 * Why Send cannot take `session` as its target, or `undefined` when it can:
 * another agent's session, or a dsh session a later dsh wrote (log format
 * v1-v4), which sessref reads and previews but leaves to that dsh to write.
 */
export function sendRefusal(session: SessionItem | undefined): string | undefined {
  if (session?.agent !== undefined) return readOnlyNote(session.agent);
  if (session?.logFormat !== undefined) return laterDshNote(session.logFormat);
  return undefined;
}

function laterDshNote(logFormat: number): string {
  return `This session's log is log format v${logFormat}, written by a dsh newer than 0.1.0-rc.8: sessref sends only into log format v0. Send the message from that dsh: Copy message copies it with its mentions.`;
}

/** Mark each of another agent's rows in the sessions list read-only (its title already names the agent, `Codex · …`), with why as the tooltip. */
export function markAgents(list: HTMLElement, sessions: readonly SessionItem[]): void {
  for (const session of sessions) {
    if (session.agent === undefined) continue;
    const row = list.querySelector(`.session[data-session-id="${CSS.escape(session.sessionId)}"]`);
    row?.querySelector('.session-age')?.append(h('span', { class: 'badge read-only', title: readOnlyNote(session.agent) }, 'read-only'));
  }
}
