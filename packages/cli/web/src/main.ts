/** The sessref inspector: sessions on the left, the target's conversation, a composer with `@` references, and a model preview. */
import './style.css';
import type { MessagesResponse, SessionItem } from '../../src/server/protocol.js';
import { api, describeError, hasToken } from './api.js';
import { Composer } from './composer.js';
import { byId } from './dom.js';
import { renderConversation, renderPreview, renderSessions, renderTargetHead, type PreviewState } from './views.js';

interface State {
  sessions: SessionItem[];
  target: string | undefined;
  conversation: MessagesResponse | undefined;
  preview: PreviewState | undefined;
  busy: boolean;
}

const state: State = { sessions: [], target: undefined, conversation: undefined, preview: undefined, busy: false };

const elements = {
  app: byId('app'),
  sessions: byId('sessions'),
  root: byId('root'),
  target: byId('target'),
  conversation: byId('conversation'),
  preview: byId('preview'),
  previewButton: byId<HTMLButtonElement>('preview-button'),
  sendButton: byId<HTMLButtonElement>('send-button'),
  toast: byId('toast'),
};

const composer = new Composer(byId('draft'), byId('menu'), {
  candidates: async (query, signal) => (state.target === undefined ? [] : (await api.candidates(state.target, query, signal)).candidates),
  changed: () => {
    if (state.preview && !state.preview.stale && !state.preview.appendedSeqs) setPreview({ ...state.preview, stale: true });
    updateButtons();
  },
  submit: () => void send(),
});

function updateButtons(): void {
  const ready = state.target !== undefined && composer.text.trim() !== '' && !state.busy;
  elements.previewButton.disabled = !ready;
  elements.sendButton.disabled = !ready;
}

function setPreview(preview: PreviewState | undefined): void {
  state.preview = preview;
  elements.app.classList.toggle('with-preview', preview !== undefined);
  renderPreview(elements.preview, preview, () => setPreview(undefined));
}

let toastTimer: ReturnType<typeof setTimeout> | undefined;
function toast(message: string, kind: 'error' | 'ok' = 'error'): void {
  elements.toast.textContent = message;
  elements.toast.className = `toast ${kind}`;
  elements.toast.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (elements.toast.hidden = true), 6000);
}

function showSessions(): void {
  renderSessions(elements.sessions, state.sessions, state.target, (id) => void select(id));
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
    elements.root.textContent = response.root;
    elements.root.title = response.root;
    showSessions();
    const newest = state.sessions.filter((session) => !session.readError).sort((a, b) => (b.createdAt ?? 0) - (a.createdAt ?? 0))[0];
    if (state.target === undefined && newest) await select(newest.sessionId);
  } catch (error) {
    toast(`Could not load sessions: ${describeError(error)}`);
  }
}

async function select(id: string): Promise<void> {
  state.target = id;
  setPreview(undefined);
  showSessions();
  updateButtons();
  try {
    const conversation = await api.messages(id);
    if (state.target === id) showConversation(conversation);
  } catch (error) {
    showConversation(undefined);
    toast(`Could not read ${id}: ${describeError(error)}`);
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
    toast(describeError(error));
  } finally {
    state.busy = false;
    updateButtons();
  }
}

function preview(): Promise<void> {
  return busy(async (target, text) => setPreview({ preview: await api.preview({ target, text }), stale: false }));
}

function send(): Promise<void> {
  return busy(async (target, text) => {
    const result = await api.send({ target, text });
    composer.clear();
    setPreview({ preview: result, appendedSeqs: result.appendedSeqs, stale: false });
    if (state.target === target) showConversation(result.conversation);
    toast(`Appended ${result.appendedSeqs.length} message${result.appendedSeqs.length === 1 ? '' : 's'} to the target`, 'ok');
  });
}

byId('refresh').addEventListener('click', () => void loadSessions());
elements.previewButton.addEventListener('click', () => void preview());
byId('composer').addEventListener('submit', (event) => {
  event.preventDefault();
  void send();
});

showConversation(undefined);
updateButtons();
if (hasToken()) void loadSessions();
else toast('This tab has no launch token: open the address `sessref serve` printed (a new tab needs it again).');
