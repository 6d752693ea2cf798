/**
 * The inspector's guards: a per-launch token, Host and Origin pinning against
 * DNS rebinding and cross-site requests, and hardening headers.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { HttpError } from './http.js';
import { TOKEN_HEADER } from './protocol.js';

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

export function newToken(): string {
  return randomBytes(32).toString('hex');
}

/** Constant-time comparison; false for anything that is not the token. */
function tokenMatches(candidate: string | undefined, token: string): boolean {
  if (candidate === undefined) return false;
  const a = Buffer.from(candidate);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The page cookie: it opens the page and its assets, never the API. Cookies
 * are not isolated by port, so any other server on this host that the browser
 * visits receives it; that is why it is not the API token. Named per port so
 * two inspectors can run side by side.
 */
function pageCookieName(port: number): string {
  return `sessref_page_${port}`;
}

export function pageCookie(port: number, pageKey: string): string {
  return `${pageCookieName(port)}=${pageKey}; HttpOnly; SameSite=Strict; Path=/`;
}

function readCookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/** Reject requests addressed to another name (DNS rebinding) or sent from another origin. */
export function checkOrigin(req: IncomingMessage, hosts: ReadonlySet<string>): void {
  const host = (req.headers.host ?? '').toLowerCase();
  if (!hosts.has(host)) throw new HttpError(403, 'FORBIDDEN_HOST', 'unexpected Host header');
  const origin = req.headers.origin;
  if (origin !== undefined && origin.toLowerCase() !== `http://${host}`) throw new HttpError(403, 'FORBIDDEN_ORIGIN', 'cross-origin requests are not allowed');
  if (req.headers['sec-fetch-site'] === 'cross-site') throw new HttpError(403, 'FORBIDDEN_ORIGIN', 'cross-site requests are not allowed');
}

export type Credential = 'header' | 'cookie' | 'query';

/** The secret each accepted credential must equal. */
export type Secrets = Partial<Record<Credential, string>>;

/**
 * Check the credentials a request carries against the secrets its route
 * accepts: the API takes the launch token by header only; pages and assets
 * also take the page cookie, or the launch token in `?token=` on the landing page.
 * Missing is 401, wrong is 403.
 */
export function checkCredentials(req: IncomingMessage, url: URL, port: number, secrets: Secrets): Credential {
  const offered: [Credential, string | undefined][] = [
    ['header', headerValue(req)],
    ['cookie', readCookie(req, pageCookieName(port))],
    ['query', url.searchParams.get('token') ?? undefined],
  ];
  const present = offered.filter(([kind, value]) => secrets[kind] !== undefined && value !== undefined && value !== '');
  if (present.length === 0) throw new HttpError(401, 'UNAUTHORIZED', 'missing token: open the URL that `sessref serve` printed');
  const match = present.find(([kind, value]) => tokenMatches(value, secrets[kind]!));
  if (!match) throw new HttpError(403, 'FORBIDDEN_TOKEN', 'wrong token: open the URL that `sessref serve` printed');
  return match[0];
}

function headerValue(req: IncomingMessage): string | undefined {
  const value = req.headers[TOKEN_HEADER];
  return Array.isArray(value) ? value[0] : value;
}
