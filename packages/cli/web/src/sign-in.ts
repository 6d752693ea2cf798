/**
 * A tab without a usable launch token (a second tab, a bookmark, a tab kept
 * from an earlier launch) gets the page that says how to get in, in place of
 * an app that could only fail. The server never hands this tab the token:
 * only the printed address carries it, and each tab keeps its own copy.
 */
import { h } from './dom.js';

/** The API's answers to a missing or stale token. */
const LAUNCH_CODES = new Set(['UNAUTHORIZED', 'FORBIDDEN_TOKEN']);

export function needsLaunchLink(code: string | undefined): boolean {
  return code !== undefined && LAUNCH_CODES.has(code);
}

/** Replace the app with the sign-in page's words. */
export function showSignIn(app: HTMLElement): void {
  document.title = 'sessref inspector: open the printed address';
  app.className = 'sign-in';
  app.replaceChildren(
    h(
      'main',
      { class: 'sign-in-card' },
      h('span', { class: 'logo', 'aria-hidden': 'true' }, '@'),
      h('h1', {}, 'This tab needs the inspector’s launch link'),
      h('p', {}, 'The inspector opens only from the address it printed when it started. Each tab keeps its own copy of that address’s token, so a new tab, a bookmark or a tab from an earlier launch has none.'),
      h(
        'ol',
        {},
        h('li', {}, 'Find the terminal running ', h('code', {}, 'sessref serve'), ' (or ', h('code', {}, 'npm start'), '), or start it again.'),
        h('li', {}, 'Open the address it printed, ', h('code', {}, `${location.origin}/?token=…`), ', in this tab.'),
      ),
    ),
  );
}
