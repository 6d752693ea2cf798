/**
 * The stand-in model: one HTTP server on 127.0.0.1 (OS-chosen port) that
 * speaks just enough of three vendor APIs for the real CLIs to hold a
 * conversation, and records every request it receives.
 *
 * - Anthropic Messages (Claude Code): `POST /v1/messages` streamed as SSE
 *   (or one JSON object when `stream` is false), `POST /v1/messages/count_tokens`.
 * - OpenAI Responses (Codex): `POST /v1/responses` as SSE; `GET /v1/models`.
 * - Gemini (Gemini CLI): `POST /v1beta/models/<m>:streamGenerateContent`
 *   (SSE), `:generateContent` (JSON), `:countTokens`, `:embedContent`.
 * - OpenAI Chat Completions (opencode, Kilo, pi, Copilot CLI, Cline, Qwen Code, …): `POST <prefix>/v1/chat/completions`,
 *   SSE chunks ending in `[DONE]` (or one JSON object when `stream` is not
 *   true). Several CLIs speak it, so each is given its own base URL prefix
 *   (`/opencode/v1`): the request's `api` is `chat@<prefix>` (`chat` without one).
 *
 * What each request is answered with is decided by the caller's
 * `answer({ api, body, text })`, which returns either `{ text }` or
 * `{ toolCall: { name, input } }` (Anthropic and Responses only), and in Chat
 * Completions may name the prompt size its usage reports (`promptTokens`:
 * Qwen Code compresses only a history whose reported size exceeds the
 * summary's). `text` is
 * the request's newest user-side text, flattened, for the caller to match.
 * Anything else is a 404 in the vendor's error shape.
 */
import { startLoopbackServer } from '../../lib/loopback-server.mjs';

const MAX_BODY = 64 * 1024 * 1024;

/** Text of one content value in any of the three shapes (string, blocks, parts). */
function flatten(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => {
    if (typeof part === 'string') return part;
    if (typeof part?.text === 'string') return part.text;
    if (part?.type === 'tool_result') return flatten(part.content);
    return '';
  }).join('\n');
}

/** The user turns of a request, oldest first, each as the text the user side put in it (tool results left out). */
export function userTurns(api, body) {
  const textOf = (parts) => (Array.isArray(parts) ? flatten(parts.filter((part) => part?.type !== 'tool_result' && part?.functionResponse === undefined)) : flatten(parts));
  if (api === 'anthropic') return (body.messages ?? []).filter((m) => m.role === 'user').map((m) => textOf(m.content));
  if (api === 'responses') return (Array.isArray(body.input) ? body.input : []).filter((item) => item?.role === 'user').map((item) => textOf(item.content));
  if (api.startsWith('chat')) return (body.messages ?? []).filter((m) => m.role === 'user').map((m) => textOf(m.content));
  return (body.contents ?? []).filter((c) => c.role === 'user').map((c) => textOf(c.parts));
}

/** The names of the tools a request offers the model, whatever the API. */
export function offeredTools(api, body) {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  if (api === 'gemini') return tools.flatMap((tool) => (tool.functionDeclarations ?? []).map((declaration) => declaration.name));
  return tools.map((tool) => tool.name ?? tool.function?.name ?? tool.type);
}

/** The newest user-side text of a request, whatever the API. */
function lastUserText(api, body) {
  if (api === 'anthropic') {
    const users = (body.messages ?? []).filter((m) => m.role === 'user');
    return flatten(users.at(-1)?.content);
  }
  if (api === 'responses') {
    const input = Array.isArray(body.input) ? body.input : [{ role: 'user', content: body.input }];
    const users = input.filter((item) => item?.role === 'user' || item?.type === 'function_call_output');
    const last = users.at(-1);
    return last?.type === 'function_call_output' ? String(last.output ?? '') : flatten(last?.content);
  }
  if (api.startsWith('chat')) return flatten((body.messages ?? []).filter((m) => m.role === 'user').at(-1)?.content);
  const users = (body.contents ?? []).filter((c) => c.role === 'user');
  return flatten(users.at(-1)?.parts);
}

/** Split a text into a few pieces, so the clients see more than one delta. */
const pieces = (text) => text.match(/[\s\S]{1,40}/g) ?? [''];

function sse(res, events) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_fake_${Date.now()}` });
  for (const { event, data } of events) {
    res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
  }
  res.end();
}

function json(res, status, value, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
}

// ── Anthropic Messages ───────────────────────────────────────────────────────
function anthropicMessage(n, body, reply) {
  const content = reply.toolCall
    ? [{ type: 'tool_use', id: `toolu_fake_${n}`, name: reply.toolCall.name, input: reply.toolCall.input }]
    : [{ type: 'text', text: reply.text }];
  return {
    id: `msg_fake_${n}`, type: 'message', role: 'assistant', model: body.model ?? 'fake', content,
    stop_reason: reply.toolCall ? 'tool_use' : 'end_turn', stop_sequence: null,
    usage: { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

function anthropicStream(res, n, body, reply) {
  const message = anthropicMessage(n, body, reply);
  const events = [
    { event: 'message_start', data: { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } } } },
  ];
  if (reply.toolCall) {
    events.push({ event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: message.content[0].id, name: reply.toolCall.name, input: {} } } });
    events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(reply.toolCall.input) } } });
  } else {
    events.push({ event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } });
    events.push({ event: 'ping', data: { type: 'ping' } });
    for (const piece of pieces(reply.text)) {
      events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } } });
    }
  }
  events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } });
  events.push({ event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: 20 } } });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  sse(res, events);
}

// ── OpenAI Responses ─────────────────────────────────────────────────────────
function responsesStream(res, n, body, reply) {
  let sequence = 0;
  const event = (type, fields) => ({ event: type, data: { type, sequence_number: sequence++, ...fields } });
  const base = { id: `resp_fake_${n}`, object: 'response', created_at: Math.floor(Date.now() / 1000), model: body.model ?? 'fake' };
  const usage = { input_tokens: 100, input_tokens_details: { cached_tokens: 0 }, output_tokens: 20, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 120 };
  const events = [event('response.created', { response: { ...base, status: 'in_progress', output: [] } })];
  events.push(event('response.in_progress', { response: { ...base, status: 'in_progress', output: [] } }));
  let item;
  if (reply.toolCall) {
    const id = `fc_fake_${n}`;
    const args = JSON.stringify(reply.toolCall.input);
    events.push(event('response.output_item.added', { output_index: 0, item: { type: 'function_call', id, call_id: `call_fake_${n}`, name: reply.toolCall.name, arguments: '', status: 'in_progress' } }));
    item = { type: 'function_call', id, call_id: `call_fake_${n}`, name: reply.toolCall.name, arguments: args, status: 'completed' };
  } else {
    const id = `msg_fake_${n}`;
    events.push(event('response.output_item.added', { output_index: 0, item: { type: 'message', id, role: 'assistant', status: 'in_progress', content: [] } }));
    events.push(event('response.content_part.added', { item_id: id, output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }));
    for (const piece of pieces(reply.text)) {
      events.push(event('response.output_text.delta', { item_id: id, output_index: 0, content_index: 0, delta: piece }));
    }
    events.push(event('response.output_text.done', { item_id: id, output_index: 0, content_index: 0, text: reply.text }));
    const part = { type: 'output_text', text: reply.text, annotations: [] };
    events.push(event('response.content_part.done', { item_id: id, output_index: 0, content_index: 0, part }));
    item = { type: 'message', id, role: 'assistant', status: 'completed', content: [part] };
  }
  events.push(event('response.output_item.done', { output_index: 0, item }));
  events.push(event('response.completed', { response: { ...base, status: 'completed', output: [item], usage } }));
  sse(res, events);
}

// ── OpenAI Chat Completions ──────────────────────────────────────────────────
/** `chat@<prefix>` for `/<prefix>/v1/chat/completions`, `chat` for `/v1/chat/completions`. */
function chatApi(path) {
  const prefix = /^\/([^/]+)\/v1\/chat\/completions$/.exec(path)?.[1];
  return prefix === undefined ? 'chat' : `chat@${prefix}`;
}

/** The usage a chat reply reports: a small prompt, unless the answer names a size (`promptTokens`). */
const chatUsage = (reply) => {
  const prompt = reply.promptTokens ?? 10;
  return { prompt_tokens: prompt, completion_tokens: 7, total_tokens: prompt + 7 };
};

function chatCompletion(n, body, reply) {
  return {
    id: `chatcmpl-fake-${n}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: body.model ?? 'fake',
    choices: [{ index: 0, message: { role: 'assistant', content: reply.text }, finish_reason: 'stop' }],
    usage: chatUsage(reply),
  };
}

function chatStream(res, n, body, reply) {
  const chunk = (delta, finish, extra = {}) => ({
    data: { id: `chatcmpl-fake-${n}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body.model ?? 'fake', choices: [{ index: 0, delta, finish_reason: finish }], ...extra },
  });
  const events = [chunk({ role: 'assistant', content: '' }, null), ...pieces(reply.text).map((piece) => chunk({ content: piece }, null))];
  events.push(chunk({}, 'stop', { usage: chatUsage(reply) }));
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const { data } of events) res.write(`data: ${JSON.stringify(data)}\n\n`);
  res.write('data: [DONE]\n\n');
  res.end();
}

// ── Gemini ───────────────────────────────────────────────────────────────────
function geminiResponse(body, reply) {
  return {
    candidates: [{ content: { role: 'model', parts: [{ text: reply.text }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 },
    modelVersion: 'fake-gemini',
  };
}

function geminiStream(res, body, reply) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(`data: ${JSON.stringify(geminiResponse(body, reply))}\r\n\r\n`);
  res.end();
}

/**
 * Start the fake model server.
 * @param {{ answer: (request: { api: string, body: any, text: string, path: string }) => { text?: string, toolCall?: { name: string, input: object }, promptTokens?: number } }} options
 */
export async function startFakeModel({ answer }) {
  const requests = [];
  const server = await startLoopbackServer({
    maxBody: MAX_BODY,
    handle: (req, res, raw) => {
      const path = (req.url ?? '').split('?')[0];
      let body = {};
      if (raw === undefined) return json(res, 413, { error: { message: 'fake model: body too large' } });
      if (raw.length > 0) {
        try { body = JSON.parse(raw.toString('utf8')); } catch { return json(res, 400, { error: { message: 'fake model: bad JSON' } }); }
      }
      const record = { n: requests.length + 1, at: Date.now(), method: req.method, url: req.url, path, api: undefined, body, reply: undefined };
      requests.push(record);
      const reply = (api) => {
        record.api = api;
        record.reply = answer({ api, body, text: lastUserText(api, body), path });
        return record.reply;
      };
      if (req.method === 'GET' && /\/models$/.test(path)) {
        record.api = 'models';
        return json(res, 200, { object: 'list', data: [{ id: 'gpt-fake', object: 'model' }], models: [] });
      }
      if (req.method !== 'POST') return json(res, 404, { type: 'error', error: { type: 'not_found_error', message: `fake model: no route ${req.method} ${path}` } });
      if (path.endsWith('/messages/count_tokens')) { record.api = 'anthropic-count'; return json(res, 200, { input_tokens: 100 }); }
      if (path.endsWith('/messages')) {
        const r = reply('anthropic');
        if (body.stream === true) return anthropicStream(res, record.n, body, r);
        return json(res, 200, anthropicMessage(record.n, body, r), { 'request-id': `req_fake_${record.n}` });
      }
      if (path.endsWith('/responses')) return responsesStream(res, record.n, body, reply('responses'));
      if (path.endsWith('/chat/completions')) {
        const r = reply(chatApi(path));
        return body.stream === true ? chatStream(res, record.n, body, r) : json(res, 200, chatCompletion(record.n, body, r));
      }
      if (path.endsWith(':countTokens')) { record.api = 'gemini-count'; return json(res, 200, { totalTokens: 100 }); }
      if (path.endsWith(':embedContent')) { record.api = 'gemini-embed'; return json(res, 200, { embedding: { values: [0.1, 0.2, 0.3] } }); }
      if (path.endsWith(':streamGenerateContent')) return geminiStream(res, body, reply('gemini'));
      if (path.endsWith(':generateContent')) return json(res, 200, geminiResponse(body, reply('gemini')));
      return json(res, 404, { type: 'error', error: { type: 'not_found_error', message: `fake model: no route POST ${path}` } });
    },
  });
  return { url: server.url, requests, close: server.close };
}
