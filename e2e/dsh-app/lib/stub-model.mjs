/**
 * A small OpenAI-compatible chat-completions stub for dsh's DeepSeek adapter
 * (`$DEEPSEEK_BASE_URL/chat/completions`, always streaming): each POST gets an
 * SSE stream of content deltas, a `finish_reason: "stop"` chunk, a usage-only
 * chunk and `data: [DONE]`. Every request body is recorded, so the test can
 * read what the model was shown.
 */
import { startLoopbackServer } from '../../lib/loopback-server.mjs';

const MAX_BODY = 32 * 1024 * 1024;

/**
 * Start the stub on 127.0.0.1 with an OS-chosen port.
 * @param {{ answer: (body: any) => string }} options
 * @returns {Promise<{ url: string, requests: any[], close: () => Promise<void> }>}
 */
export async function startStubModel({ answer }) {
  const requests = [];
  const server = await startLoopbackServer({
    maxBody: MAX_BODY,
    handle: (req, res, raw) => {
      if (raw === undefined) {
        res.writeHead(413, { 'content-type': 'application/json' }).end('{"error":{"message":"stub: body too large"}}');
        return;
      }
      if (req.method === 'GET' && /\/models$/.test(req.url ?? '')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'deepseek-v4-flash', object: 'model' }] }));
        return;
      }
      if (req.method !== 'POST' || !/\/chat\/completions$/.test(req.url ?? '')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `stub: no route ${req.method} ${req.url}` } }));
        return;
      }
      let body;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"stub: bad JSON"}}');
        return;
      }
      requests.push(body);
      const text = answer(body);
      const base = { id: `stub-${requests.length}`, object: 'chat.completion.chunk', created: 1_800_000_000, model: body.model ?? 'stub' };
      const send = (payload) => res.write(`data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
      for (const piece of text.match(/.{1,12}/gsu) ?? []) {
        send({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
      }
      send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
      send({ ...base, choices: [], usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 } });
      send('[DONE]');
      res.end();
    },
  });
  return { url: server.url, requests, close: server.close };
}
