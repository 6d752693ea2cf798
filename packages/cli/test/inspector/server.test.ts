import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { extractReferencedSessionsJson, formatSessionReferenceMention, stringifyTagSafeJson } from '@sessref/core';
import { utf8Length } from '@sessref/core/internal';
import { Engine } from '../../src/engine/engine.js';
import type { ApiError, CandidatesResponse, MessagesResponse, PreviewResponse, SendResponse, SessionsResponse } from '../../src/server/protocol.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { TARGET, httpRequest, json, removeDir, seedRoot, tempDir, type Reply, type RequestOptions } from './fixture.js';

let root: string;
let webRoot: string;
let engine: Engine;
let server: RunningServer;
const logged: string[] = [];

beforeAll(async () => {
  root = await tempDir('server-root');
  webRoot = await tempDir('server-web');
  await mkdir(join(webRoot, 'assets'));
  await writeFile(join(webRoot, 'index.html'), '<!doctype html><script type="module" src="/assets/app.js"></script>');
  await writeFile(join(webRoot, 'assets', 'app.js'), 'export {};\n');
  await seedRoot(root);
  engine = await Engine.open({ root });
  server = await startServer(engine, { webRoot, log: (line) => logged.push(line) });
});

afterAll(async () => {
  await server?.close();
  await engine?.close();
  await removeDir(root);
  await removeDir(webRoot);
});

afterEach(() => {
  // Whatever happened, nothing the server logged may carry transcript text.
  for (const line of logged) expect(line).not.toMatch(/flaky|secret marker|Mock the price/i);
});

const auth = () => ({ 'x-sessref-token': server.token });

function api(path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const options: RequestOptions = { path, method: body === undefined ? 'GET' : 'POST', headers: { ...auth(), ...headers } };
  if (body !== undefined) {
    options.headers = { 'content-type': 'application/json', ...options.headers };
    options.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  return httpRequest(server.port, options);
}

function apiErrorCode(reply: Reply): string {
  return json<ApiError>(reply).error.code;
}

describe('access control', () => {
  it('prints a loopback URL with a 256-bit token', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=${server.token}`);
    expect(server.token).toMatch(/^[0-9a-f]{64}$/);
  });

  it('answers 401 without a token and 403 with a wrong one', async () => {
    expect((await httpRequest(server.port, { path: '/api/sessions' })).status).toBe(401);
    expect((await httpRequest(server.port, { path: '/api/sessions', headers: { 'x-sessref-token': 'f'.repeat(64) } })).status).toBe(403);
    expect((await httpRequest(server.port, { path: '/api/sessions', headers: { 'x-sessref-token': 'short' } })).status).toBe(403);
    expect((await httpRequest(server.port, { path: '/' })).status).toBe(401);
    expect((await httpRequest(server.port, { path: '/?token=nope' })).status).toBe(403);
    expect((await httpRequest(server.port, { path: '/assets/app.js' })).status).toBe(401);
    const ok = await api('/api/sessions');
    expect(ok.status).toBe(200);
    expect(json<SessionsResponse>(ok).sessions.map((session) => session.sessionId)).toContain(TARGET);
  });

  it('trades ?token= for a page cookie that is not the token, and hands the token over in the fragment', async () => {
    const landing = await httpRequest(server.port, { path: `/?token=${server.token}` });
    expect(landing.status).toBe(303);
    expect(landing.headers.location).toBe(`/#token=${server.token}`);
    const cookie = landing.headers['set-cookie']?.[0] ?? '';
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toContain(server.token);
    const pair = cookie.split(';')[0]!;
    const page = await httpRequest(server.port, { path: '/', headers: { cookie: pair } });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.text).not.toContain(server.token);
    expect((await httpRequest(server.port, { path: '/assets/app.js', headers: { cookie: pair } })).status).toBe(200);
    // The cookie opens pages, never the API, whether sent as a cookie or replayed as the token.
    expect((await httpRequest(server.port, { path: '/api/sessions', headers: { cookie: pair } })).status).toBe(401);
    const pageKey = pair.split('=')[1]!;
    expect((await httpRequest(server.port, { path: '/api/sessions', headers: { 'x-sessref-token': pageKey } })).status).toBe(403);
    expect((await httpRequest(server.port, { path: `/?token=${pageKey}` })).status).toBe(403);
  });

  it('answers the bare address with a page that says how to get in, and the API with JSON', async () => {
    const bare = await httpRequest(server.port, { path: '/' });
    expect(bare.status).toBe(401);
    expect(bare.headers['content-type']).toMatch(/text\/html/);
    expect(bare.text).toContain('sessref serve');
    expect(bare.text).toContain('?token=');
    const wrong = await httpRequest(server.port, { path: '/?token=nope' });
    expect([wrong.status, wrong.headers['content-type']]).toEqual([403, expect.stringMatching(/text\/html/)]);
    const api = await httpRequest(server.port, { path: '/api/sessions' });
    expect(api.headers['content-type']).toMatch(/application\/json/);
    expect(apiErrorCode(api)).toBe('UNAUTHORIZED');
  });

  it('rejects a foreign Host (DNS rebinding) and a foreign Origin with 403', async () => {
    const port = server.port;
    for (const host of [`evil.example:${port}`, `localhost:${port}`, `127.0.0.1:${port + 1}`, '127.0.0.1', `127.0.0.1:${port}.evil.example`]) {
      const reply = await api('/api/sessions', undefined, { host });
      expect(reply.status, host).toBe(403);
      expect(apiErrorCode(reply)).toBe('FORBIDDEN_HOST');
    }
    expect((await httpRequest(port, { path: `/?token=${server.token}`, headers: { host: `attacker.test:${port}` } })).status).toBe(403);
    // HTTP/1.1 without Host: node:http itself refuses it (400) before the handler runs.
    expect([400, 403]).toContain((await httpRequest(port, { path: '/api/sessions', headers: auth(), noHost: true })).status);
    for (const origin of ['http://evil.example', `http://localhost:${port}`, `https://127.0.0.1:${port}`, 'null']) {
      const reply = await api('/api/candidates', { target: TARGET, query: '' }, { origin });
      expect(reply.status, origin).toBe(403);
      expect(apiErrorCode(reply)).toBe('FORBIDDEN_ORIGIN');
    }
    expect((await api('/api/sessions', undefined, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await api('/api/candidates', { target: TARGET, query: '' }, { origin: server.origin })).status).toBe(200);
  });

  it('sends hardening headers on every answer', async () => {
    for (const reply of [await api('/api/sessions'), await httpRequest(server.port, { path: '/' }), await api('/api/nope')]) {
      const csp = String(reply.headers['content-security-policy']);
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
      expect(reply.headers['x-content-type-options']).toBe('nosniff');
      expect(reply.headers['referrer-policy']).toBe('no-referrer');
      expect(reply.headers['cache-control']).toBe('no-store');
    }
  });
});

describe('requests', () => {
  it('refuses bodies over 1 MiB with 413, declared or streamed', async () => {
    const big = JSON.stringify({ target: TARGET, text: 'x'.repeat(1024 * 1024) });
    const declared = await api('/api/preview', big);
    expect(declared.status).toBe(413);
    expect(apiErrorCode(declared)).toBe('PAYLOAD_TOO_LARGE');
    const streamed = await httpRequest(server.port, {
      method: 'POST',
      path: '/api/preview',
      headers: { ...auth(), 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      body: big,
    });
    expect(streamed.status).toBe(413);
    // The server is still fine afterwards.
    expect((await api('/api/sessions')).status).toBe(200);
  });

  it('answers 400 for malformed or misshapen bodies and 415 for non-JSON', async () => {
    expect(apiErrorCode(await api('/api/candidates', '{"target":'))).toBe('MALFORMED_JSON');
    expect((await api('/api/candidates', '{"target":')).status).toBe(400);
    expect((await api('/api/candidates', '[1,2]')).status).toBe(400);
    expect((await api('/api/candidates', { target: TARGET })).status).toBe(400);
    expect((await api('/api/preview', { target: TARGET, text: 42 })).status).toBe(400);
    expect((await api('/api/messages', { sessionId: '' })).status).toBe(400);
    const form = await api('/api/candidates', 'target=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
  });

  it('answers 404 for unknown paths and 405 for wrong methods', async () => {
    expect((await api('/api/nope')).status).toBe(404);
    expect((await httpRequest(server.port, { path: '/nope', headers: auth() })).status).toBe(404);
    expect((await httpRequest(server.port, { path: '/assets/%2e%2e%2fpackage.json', headers: auth() })).status).toBe(404);
    expect((await httpRequest(server.port, { path: '/assets/missing.js', headers: auth() })).status).toBe(404);
    const get = await api('/api/candidates');
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    const post = await api('/api/sessions', {});
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET');
    expect((await httpRequest(server.port, { method: 'DELETE', path: '/', headers: auth() })).status).toBe(405);
  });

  it('maps reference and storage errors to 4xx with {error: {code, message}}', async () => {
    const missing = await api('/api/candidates', { target: 'no-such-session', query: '' });
    expect(missing.status).toBe(404);
    expect(json<ApiError>(missing).error.message).toBeTypeOf('string');
    expect((await api('/api/messages', { sessionId: 'no-such-session' })).status).toBe(404);
    const broken = await api('/api/preview', { target: TARGET, text: 'see @[x](dsh-session:!!!)' });
    expect(broken.status).toBe(400);
    expect(apiErrorCode(broken)).toBe('SESSION_REFERENCE_INVALID_REFERENCE');
    const self = await api('/api/preview', { target: TARGET, text: formatSessionReferenceMention({ sessionId: TARGET, label: 'me' }) });
    expect(self.status).toBe(400);
    expect(apiErrorCode(self)).toBe('SESSION_REFERENCE_SELF_REFERENCE');
    const gone = await api('/api/preview', { target: TARGET, text: formatSessionReferenceMention({ sessionId: 'vanished', label: 'gone' }) });
    expect(gone.status).toBe(404);
    expect(apiErrorCode(gone)).toBe('SESSION_REFERENCE_READ_FAILED');
  });

  it('hides unexpected failures behind a 500 and logs no transcript text', async () => {
    const original = engine.preview.bind(engine);
    engine.preview = async () => {
      throw new Error('secret marker from a transcript');
    };
    try {
      const reply = await api('/api/preview', { target: TARGET, text: 'secret marker' });
      expect(reply.status).toBe(500);
      expect(reply.text).not.toContain('secret marker');
      expect(logged.at(-1)).toBe('POST /api/preview 500 INTERNAL (Error)');
    } finally {
      engine.preview = original;
    }
  });
});

describe('candidates, preview and send', () => {
  it('serves the Remote candidates face with canonical mentions', async () => {
    const reply = json<CandidatesResponse>(await api('/api/candidates', { target: TARGET, query: 'FLAKY' }));
    expect(reply.candidates).toEqual([
      expect.objectContaining({ sessionId: 'flaky-ci', label: 'Fix flaky CI on main', mention: formatSessionReferenceMention({ sessionId: 'flaky-ci', label: 'Fix flaky CI on main' }) }),
    ]);
    const all = json<CandidatesResponse>(await api('/api/candidates', { target: TARGET, query: '' }));
    expect(all.candidates.map((candidate) => candidate.sessionId)).not.toContain(TARGET);
    // Same cwd first.
    expect(all.candidates.slice(0, 2).map((candidate) => candidate.sessionId).sort()).toEqual(['billing-schema', 'flaky-ci']);
  });

  it('previews both model messages with byte sizes of the serialized data objects', async () => {
    const mention = formatSessionReferenceMention({ sessionId: 'flaky-ci', label: 'Fix flaky CI on main' });
    const reply = json<PreviewResponse>(await api('/api/preview', { target: TARGET, text: `Compare with ${mention} please` }));
    expect(reply.messages.map((message) => message.kind)).toEqual(['readable', 'context']);
    expect(reply.messages[0]!.text).toBe('Compare with @Fix flaky CI on main please');
    const context = reply.messages[1]!;
    expect(context.text).toContain('<referenced-sessions>\n[{"sessionId":"flaky-ci"');
    expect(context.display).toContain('<referenced-sessions>\n[\n  {\n    "sessionId": "flaky-ci"');
    const [object] = JSON.parse(extractReferencedSessionsJson(context.text)!) as unknown[];
    expect(reply.references).toEqual([
      expect.objectContaining({ sessionId: 'flaky-ci', retainedMessages: 6, omittedMessages: 0, truncated: false, bytes: utf8Length(stringifyTagSafeJson(object)) }),
    ]);
    expect(reply.references[0]!.bytes).toBe((await engine.show('flaky-ci')).reference?.bytes);
    expect(reply.maxReferenceBytes).toBe(engine.maxReferenceBytes);
  });

  it('sends: the target log gains the readable message and its snapshot', async () => {
    const before = json<MessagesResponse>(await api('/api/messages', { sessionId: 'staging-vpc' }));
    const mention = formatSessionReferenceMention({ sessionId: 'release-notes', label: 'Release notes for v2.4' });
    const sent = json<SendResponse>(await api('/api/send', { target: 'staging-vpc', text: `Context: ${mention}` }));
    expect(sent.appendedSeqs).toHaveLength(2);
    const after = json<MessagesResponse>(await api('/api/messages', { sessionId: 'staging-vpc' }));
    expect(after).toEqual(sent.conversation);
    expect(after.messages.slice(0, before.messages.length)).toEqual(before.messages);
    const added = after.messages.slice(before.messages.length);
    expect(added.map((message) => [message.kind, message.seq])).toEqual([
      ['user', sent.appendedSeqs[0]],
      ['context', sent.appendedSeqs[1]],
    ]);
    expect(added[0]!.text).toBe('Context: @Release notes for v2.4');
    expect(added[1]!.references).toEqual([expect.objectContaining({ sessionId: 'release-notes', label: 'Release notes for v2.4' })]);
  });
});

describe('cancellation', () => {
  it('200 concurrent candidate requests with aborts in flight leave no work running', async () => {
    const original = engine.candidates.bind(engine);
    let inflight = 0;
    let slowStarted = 0;
    const outcomes: string[] = [];
    engine.candidates = async (target, query, limit, signal) => {
      inflight++;
      try {
        if (query === 'slow') {
          slowStarted++;
          // Hold the request until the client gives up (bounded, so a broken abort path fails the test instead of hanging).
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, 10_000);
            signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
          });
        }
        const result = await original(target, query, limit, signal);
        outcomes.push('done');
        return result;
      } catch (error) {
        outcomes.push((error as { code?: string }).code ?? 'error');
        throw error;
      } finally {
        inflight--;
      }
    };
    try {
      const slow = Array.from({ length: 100 }, () => new AbortController());
      const quick = Array.from({ length: 100 }, () => new AbortController());
      const post = (query: string, controller: AbortController) =>
        httpRequest(server.port, {
          method: 'POST',
          path: '/api/candidates',
          headers: { ...auth(), 'content-type': 'application/json' },
          body: JSON.stringify({ target: TARGET, query }),
          signal: controller.signal,
        }).then(
          (reply) => reply.status,
          () => 'aborted',
        );
      const requests = [...slow.map((controller) => post('slow', controller)), ...quick.map((controller) => post('fix', controller))];
      // Abort half of the quick ones at once, whatever state they are in.
      quick.forEach((controller, index) => index % 4 === 0 && controller.abort());
      await waitFor(() => slowStarted === 100);
      for (const controller of slow) controller.abort();
      const statuses = await Promise.all(requests);
      expect(statuses.slice(0, 100).every((status) => status === 'aborted')).toBe(true);
      expect(statuses.slice(100).every((status) => status === 200 || status === 'aborted')).toBe(true);
      await waitFor(() => inflight === 0);
      // Every held request saw its abort and the real listCandidates refused to work on it.
      expect(outcomes.filter((outcome) => outcome === 'SESSION_REFERENCE_CANCELLED').length).toBeGreaterThanOrEqual(100);
      expect((await api('/api/candidates', { target: TARGET, query: 'fix' })).status).toBe(200);
    } finally {
      engine.candidates = original;
    }
  });

  it('close() aborts requests still in flight', async () => {
    const localEngine = await Engine.open({ root });
    const local = await startServer(localEngine, { webRoot });
    let seen: AbortSignal | undefined;
    localEngine.candidates = async (_target, _query, _limit, signal) => {
      seen = signal;
      await new Promise((resolve) => signal?.addEventListener('abort', resolve, { once: true }));
      return [];
    };
    const pending = httpRequest(local.port, {
      method: 'POST',
      path: '/api/candidates',
      headers: { 'x-sessref-token': local.token, 'content-type': 'application/json' },
      body: JSON.stringify({ target: TARGET, query: '' }),
    }).catch(() => 'closed');
    await waitFor(() => seen !== undefined);
    await local.close();
    expect(seen?.aborted).toBe(true);
    expect(await pending).toBe('closed');
    await localEngine.close();
  });
});

async function waitFor(condition: () => boolean, timeout = 15_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeout) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
