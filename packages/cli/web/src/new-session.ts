/**
 * The New session dialog: a title and an optional absolute cwd, created
 * through `POST /api/new` as `sessref new` does. A modal <dialog> keeps focus
 * inside, and Escape cancels it natively; failures stay in the dialog as a
 * sentence, next to the fields they concern. The server applies the one rule
 * for titles (a blank one names the session `Untitled …`, as `sessref new`).
 */
import { api, describeError } from './api.js';
import { byId } from './dom.js';

export function setUpNewSession(opener: HTMLButtonElement, created: (sessionId: string) => Promise<void>): void {
  const dialog = byId('new-session-dialog', HTMLDialogElement);
  const form = byId('new-session-form', HTMLFormElement);
  const title = byId('new-session-title', HTMLInputElement);
  const cwd = byId('new-session-cwd', HTMLInputElement);
  const error = byId('new-session-error');

  const showError = (message: string | undefined) => {
    error.textContent = message ?? '';
    error.hidden = message === undefined;
  };

  opener.addEventListener('click', () => {
    form.reset();
    showError(undefined);
    dialog.showModal();
    title.focus();
  });
  byId('new-session-cancel').addEventListener('click', () => dialog.close());
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void submit();
  });

  async function submit(): Promise<void> {
    try {
      const { sessionId } = await api.newSession({ title: title.value, cwd: cwd.value });
      dialog.close();
      await created(sessionId);
    } catch (failure) {
      showError(describeError(failure));
    }
  }
}
