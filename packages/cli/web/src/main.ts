/** The sessref inspector: sessions on the left, the target's conversation, a composer with `@` references, and a model preview. */
import './style.css';
import { labelOf } from '@sessref/core';
import type { MessagesResponse, SessionItem, SourceProblem } from '../../src/server/protocol.js';
import { api, describeError, errorCode, hasToken } from './api.js';
import { copyText } from './clipboard.js';
import { Composer } from './composer.js';
import { byId, h } from './dom.js';
import { quoted } from './format.js';
import { keepTargetInAddress, targetInAddress } from './location.js';
import { isWritable, markAgents, sendRefusal } from './agents.js';
import { followChanges } from './follow.js';
import { setUpNewSession } from './new-session.js';
import { renderConversation } from './conversation.js';
import { needsLaunchLink, showSignIn } from './sign-in.js';
import { renderPreview, renderSessions, renderTargetHead, type PreviewState } from './views.js';

interface State {
  sessions: SessionItem[];
  target: string | undefined;
  conversation: MessagesResponse | undefined;
  preview: PreviewState | undefined;
  busy: boolean;
  /** Distinct sessions one message may reference, as the server is configured. */
  maxReferences: number;
}

const state: State = { sessions: [], target: undefined, conversation: undefined, preview: undefined, busy: false, maxReferences: 3 };

const elements = {
  app: byId('app'),
  sessions: byId('sessions'),
  root: byId('root'),
  sourceNotice: byId('source-notice'),
  target: byId('target'),
  conversation: byId('conversation'),
  preview: byId('preview'),
  previewButton: byId('preview-button', HTMLButtonElement),
  sendButton: byId('send-button', HTMLButtonElement),
  sendNote: byId('send-note'),
  sendNoteText: byId('send-note-text'),
  copyMessage: byId('copy-message', HTMLButtonElement),
  toast: byId('toast'),
  sessionsToggle: byId('sessions-toggle', HTMLButtonElement),
};

const composer = new Composer(byId('draft'), byId('menu'), {
  candidates: async (query, signal) => (state.target === undefined ? [] : (await api.candidates(state.target, query, signal)).candidates),
  search: async (query, signal) => (state.target === undefined ? [] : (await api.search(state.target, query, signal)).hits),
  changed: () => {
    if (state.preview && !state.preview.stale && !state.preview.appendedSeqs) setPreview({ ...state.preview, stale: true });
    updateButtons();
  },
  submit: () => void send(),
  maxReferences: () => state.maxReferences,
  copy: (mention, label) => void copyMention(mention, label),
  readError: (sessionId) => state.sessions.find((session) => session.sessionId === sessionId)?.readError,
});

function updateButtons(): void {
  const target = targetSession();
  // Another agent's session is read-only: it is shown and cited, never sent or previewed into.
  const ready = state.target !== undefined && (target === undefined || isWritable(target)) && composer.text.trim() !== '' && !state.busy;
  // A session a later dsh wrote is previewed, and sent into by that dsh only: said before anything is typed.
  const refusal = sendRefusal(target);
  elements.previewButton.disabled = !ready;
  elements.sendButton.disabled = !ready || refusal !== undefined;
  elements.previewButton.title = isWritable(target) ? '' : (refusal ?? '');
  elements.sendButton.title = refusal ?? '';
  elements.sendNoteText.textContent = refusal ?? '';
  elements.sendNote.hidden = refusal === undefined;
  elements.copyMessage.hidden = target?.logFormat === undefined;
}

/** The listed session the page targets, if it is listed. */
function targetSession(): SessionItem | undefined {
  return state.sessions.find((session) => session.sessionId === state.target);
}

function setPreview(preview: PreviewState | undefined): void {
  state.preview = preview;
  elements.app.classList.toggle('with-preview', preview !== undefined);
  renderPreview(elements.preview, preview, closePreview);
}

/** Close the preview and give the keyboard back to the composer. */
function closePreview(): void {
  setPreview(undefined);
  composer.focus();
}

let toastTimer: ReturnType<typeof setTimeout> | undefined;
/** A short notice; a failure carries the server's code in small type after its sentence. */
function toast(message: string, kind: 'error' | 'ok' = 'error', code?: string): void {
  elements.toast.replaceChildren(message, code === undefined ? '' : h('code', { class: 'toast-code' }, code));
  elements.toast.className = `toast ${kind}`;
  elements.toast.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (elements.toast.hidden = true), 6000);
}

function showSessions(): void {
  renderSessions(elements.sessions, state.sessions, state.target, {
    select: (id) => void select(id),
    copy: (session) => void copyMention(session.mention ?? '', labelOf(session.sessionId, session.title)),
  });
  markAgents(elements.sessions, state.sessions);
}

/** What other agents' sources could not read: a quiet note above the list, one line each, never a toast. */
function showSourceProblems(problems: readonly SourceProblem[]): void {
  elements.sourceNotice.hidden = problems.length === 0;
  const head = problems.length === 1 ? "Something another agent keeps could not be read; every other session is listed." : `${problems.length} things other agents keep could not be read; every other session is listed.`;
  elements.sourceNotice.replaceChildren(h('p', { class: 'source-notice-head' }, head), h('ul', {}, ...problems.map((problem) => h('li', { title: problem.code }, problem.message))));
}

/** The draft with its mentions, for a target only the dsh that wrote it sends into. */
function copyMessage(): Promise<void> {
  return copyAndSay(composer.text, 'Copied the message with its mentions: paste it into the dsh that wrote this session.');
}

function copyMention(mention: string, label: string): Promise<void> {
  return copyAndSay(mention, `Copied the mention of ${quoted(label)}: paste it into dsh to reference that session.`);
}

/** Copy `text` and say `copied`, or say how to copy it without the clipboard. */
async function copyAndSay(text: string, copied: string): Promise<void> {
  if (await copyText(text)) toast(copied, 'ok');
  else toast('The browser refused to write to the clipboard. Select the text and copy it by hand.');
}

function showConversation(conversation: MessagesResponse | undefined): void {
  state.conversation = conversation;
  renderTargetHead(elements.target, conversation);
  renderConversation(elements.conversation, conversation);
}

async function loadSessions(): Promise<void> {
  try {
    const response = await api.sessions();
    state.sessions = response.sessions;
    state.maxReferences = response.maxReferences;
    elements.root.textContent = response.root;
    elements.root.title = response.root;
    showSourceProblems(response.problems);
    showSessions();
    if (state.target === undefined) {
      // The address names the target shown, picked or not, so a reload or a copied address shows the same one.
      const target = firstTarget();
      if (target !== undefined) await select(target);
    }
  } catch (error) {
    // A token of an earlier launch opens nothing: say how to get in, instead of an empty app.
    if (needsLaunchLink(errorCode(error))) return showSignIn(elements.app);
    toast(`Could not load the sessions. ${describeError(error)}`, 'error', errorCode(error));
  }
}

/** The target in the address when it is listed, else the newest readable dsh session (else the newest readable one). */
function firstTarget(): string | undefined {
  const readable = state.sessions.filter((session) => !session.readError);
  const wanted = targetInAddress();
  if (wanted !== undefined && readable.some((session) => session.sessionId === wanted)) return wanted;
  // The server lists the newest first; a dsh session before another agent's, which cannot be written to.
  return (readable.find(isWritable) ?? readable[0])?.sessionId;
}

async function select(id: string): Promise<void> {
  state.target = id;
  keepTargetInAddress(id);
  composer.keepDraftFor(id);
  showSessionsPanel(false);
  setPreview(undefined);
  showSessions();
  updateButtons();
  try {
    const conversation = await api.messages(id);
    if (state.target === id) showConversation(conversation);
  } catch (error) {
    showConversation(undefined);
    toast(`Could not read the session ${id}. ${describeError(error)}`, 'error', errorCode(error));
  }
  composer.focus();
}

/** Run `work` with the buttons disabled; failures become a toast. */
async function busy(work: (target: string, text: string) => Promise<void>): Promise<void> {
  const target = state.target;
  const text = composer.text;
  if (target === undefined || text.trim() === '' || state.busy) return;
  state.busy = true;
  updateButtons();
  try {
    await work(target, text);
  } catch (error) {
    toast(describeError(error), 'error', errorCode(error));
  } finally {
    state.busy = false;
    updateButtons();
  }
}

function preview(): Promise<void> {
  return busy(async (target, text) => setPreview({ preview: await api.preview({ target, text }), stale: false }));
}

function send(): Promise<void> {
  // Ctrl+Enter submits from the composer itself: it sends only what the Send button would.
  if (elements.sendButton.disabled) return Promise.resolve();
  return busy(async (target, text) => {
    const result = await api.send({ target, text });
    composer.clear();
    const sent: PreviewState = { preview: result, appendedSeqs: result.appendedSeqs, targetTitle: result.conversation.title ?? target, stale: false };
    setPreview(sent);
    // The preview's banner says what happened; a toast saying it again would cover the preview's ×.
    if (state.target === target) showConversation(result.conversation);
  });
}

/** Below 720 px the sessions list is a panel the header button opens. */
function showSessionsPanel(open: boolean): void {
  elements.app.classList.toggle('sessions-open', open);
  elements.sessionsToggle.setAttribute('aria-expanded', String(open));
}

byId('refresh').addEventListener('click', () => void loadSessions());
elements.sessionsToggle.addEventListener('click', () => showSessionsPanel(!elements.app.classList.contains('sessions-open')));
setUpNewSession(byId('new-session', HTMLButtonElement), async (sessionId) => {
  await loadSessions();
  await select(sessionId);
});
// Escape closes the preview (the @ menu and the dialog handle their own Escape first).
document.addEventListener('keydown', (event) => {
  if (event.key !== 'Escape' || event.defaultPrevented || document.querySelector('dialog[open]')) return;
  if (elements.app.classList.contains('sessions-open')) return showSessionsPanel(false);
  if (state.preview) closePreview();
});
elements.previewButton.addEventListener('click', () => void preview());
elements.copyMessage.addEventListener('click', () => void copyMessage());
byId('composer').addEventListener('submit', (event) => {
  event.preventDefault();
  void send();
});

/**
 * Another program wrote under the root (a `sessref send`, dsh itself): the
 * list follows, and so does the open conversation when it is among the
 * changed sessions. The draft is the composer's and stays; the conversation
 * view keeps its scroll for the same session.
 */
async function followed(changed: readonly string[] | 'all'): Promise<void> {
  await loadSessions();
  const target = state.target;
  if (target === undefined || (changed !== 'all' && !changed.includes(target))) return;
  try {
    const conversation = await api.messages(target);
    if (state.target === target) showConversation(conversation);
  } catch {
    // Left as shown: the next change, or picking the session again, reads it again and says why it cannot.
  }
}

showConversation(undefined);
updateButtons();
if (hasToken()) {
  void loadSessions();
  followChanges((changed) => void followed(changed));
} else showSignIn(elements.app);
