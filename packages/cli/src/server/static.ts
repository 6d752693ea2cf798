/** The built web client (packages/cli/web-dist), served read-only. */
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpError } from './http.js';

/** `web-dist` beside `src/` and `dist/`, so both the sources and the build find it. */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../web-dist/', import.meta.url));

/** Where the page learns the token; filled in per launch. */
const TOKEN_PLACEHOLDER = '__SESSREF_TOKEN__';

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
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** The page with this launch's token in its `sessref-token` meta tag. */
export async function indexPage(webRoot: string, token: string): Promise<StaticFile> {
  const html = await readOrNull(join(webRoot, 'index.html'));
  if (html === null) throw new HttpError(503, 'WEB_NOT_BUILT', 'the web client is not built: run `npm run build:web -w @sessref/cli`');
  return { type: TYPES['.html']!, body: Buffer.from(html.toString('utf8').replace(TOKEN_PLACEHOLDER, token)) };
}

export async function asset(webRoot: string, pathname: string): Promise<StaticFile | null> {
  const body = await readOrNull(join(webRoot, pathname));
  return body === null ? null : { type: TYPES[extname(pathname)]!, body };
}
