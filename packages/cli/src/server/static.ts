/** The built web client (packages/cli/web-dist), served read-only. */
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpError } from './http.js';
import { errorCode } from '@sessref/core';

/** `web-dist` beside `src/` and `dist/`, so both the sources and the build find it. */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../web-dist/', import.meta.url));

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** Only flat names under the root or `assets/`: no traversal, no dotfiles. */
const ASSET_PATH = /^\/(?:assets\/)?[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

export interface StaticFile {
  type: string;
  body: Buffer;
}

export function isAssetPath(pathname: string): boolean {
  return ASSET_PATH.test(pathname) && pathname !== '/index.html' && TYPES[extname(pathname)] !== undefined;
}

async function readOrNull(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return null;
    throw error;
  }
}

/** The built page, the same for every launch: the token reaches it through the address fragment, never the HTML. */
export async function indexPage(webRoot: string): Promise<StaticFile> {
  const html = await readOrNull(join(webRoot, 'index.html'));
  if (html === null) throw new HttpError(503, 'WEB_NOT_BUILT', 'the web client is not built: run `npm run build:web -w @sessref/cli`');
  return { type: TYPES['.html']!, body: html };
}

const SIGN_IN_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>sessref inspector</title></head>
<body>
<h1>This inspector needs its launch link</h1>
<p>The sessref inspector only opens from the address it printed when it started, which carries its access token: one per launch, valid until the server stops.</p>
<ol>
<li>Find the terminal where <code>sessref serve</code> (or <code>npm start</code>) is running, or start it again.</li>
<li>Open the printed address, <code>http://127.0.0.1:&lt;port&gt;/?token=…</code>, in this browser.</li>
</ol>
<p>Each tab keeps its own copy of the token; a new tab needs the printed address again.</p>
</body>
</html>
`;

/** What a browser gets at the bare address: how to get in, in words. */
export function signInPage(): StaticFile {
  return { type: TYPES['.html']!, body: Buffer.from(SIGN_IN_PAGE) };
}

export async function asset(webRoot: string, pathname: string): Promise<StaticFile | null> {
  const body = await readOrNull(join(webRoot, pathname));
  return body === null ? null : { type: TYPES[extname(pathname)]!, body };
}
