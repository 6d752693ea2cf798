/**
 * The corpus's JSON-lines agents, each session a realistic transcript of a
 * few kilobytes in the agent's own on-disk shape and place under HOME
 * (../shared/formats/<agent>.md): three turns of a prompt, reasoning where
 * the agent records it, a tool call and its output, a reply, and the agent's
 * own event, context and title records. A writer takes the HOME's writer
 * (records.mjs), its session count and the corpus's random source.
 */
import { Buffer } from 'node:buffer';
import { zstdCompressSync } from 'node:zlib';
import { prose } from '../lib/text.mjs';
import { cwdOf, EPOCH, iso, line, pad, sessionClock, uuidOf } from './records.mjs';

const TURNS = 3;
/** A folder name from a working directory, `/` and every other non-alphanumeric as `-` (Claude Code, Qwen Code, Factory Droid). */
const dashed = (cwd) => cwd.replace(/[^a-zA-Z0-9]/g, '-');

/** Claude Code: `~/.claude/projects/<cwd>/<session>.jsonl`, a tree of records with thinking, tool use and an `ai-title`; about 6-10 KB. */
export function writeClaudeCode(files, count, next) {
  for (let n = 0; n < count; n += 1) {
    const session = uuidOf(n, 1);
    const cwd = cwdOf(n, 50);
    const clock = sessionClock(n);
    let parent = null;
    let uuid = 0;
    const records = [line({ type: 'queue-operation', operation: 'enqueue', timestamp: iso(clock.start), sessionId: session })];
    const tree = (type, fields) => {
      uuid += 1;
      const id = `${session.slice(0, 8)}-r${uuid}`;
      records.push(line({ parentUuid: parent, isSidechain: false, userType: 'external', cwd, sessionId: session, version: '2.1.0', gitBranch: 'main', type, uuid: id, timestamp: clock.tick(), ...fields }));
      parent = id;
    };
    for (let turn = 0; turn < TURNS; turn += 1) {
      const message = (id, content) => ({ message: { id, type: 'message', role: 'assistant', model: 'claude', content } });
      tree('user', { message: { role: 'user', content: prose(next, 160) } });
      tree('assistant', message(`msg_${n}_${turn}a`, [{ type: 'thinking', thinking: prose(next, 300), signature: 'sig' }]));
      tree('assistant', message(`msg_${n}_${turn}a`, [{ type: 'tool_use', id: `toolu_${n}_${turn}`, name: 'Bash', input: { command: 'npm test' } }]));
      tree('user', { message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${n}_${turn}`, content: prose(next, 900) }] }, toolUseResult: { stdout: '…' } });
      tree('assistant', message(`msg_${n}_${turn}b`, [{ type: 'text', text: prose(next, 500) }]));
    }
    records.push(line({ type: 'ai-title', aiTitle: prose(next, 30), sessionId: session }));
    files.write(`.claude/projects/${dashed(cwd)}/${session}.jsonl`, records.join(''));
  }
}

/** One Codex rollout: session_meta, turn context, injected context, prompts, reasoning, tool calls, replies and their events; about 8-12 KB. */
function codexRollout(n, next) {
  const thread = uuidOf(n, 2);
  const clock = sessionClock(n, 1200);
  const cwd = cwdOf(n, 40, 'service');
  const record = (type, payload) => line({ timestamp: clock.tick(), type, payload });
  const records = [
    record('session_meta', { id: thread, timestamp: iso(clock.start), cwd, originator: 'codex_cli_rs', cli_version: '0.171.0', source: 'cli', instructions: prose(next, 400) }),
    record('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: `<environment_context>\n  <cwd>${cwd}</cwd>\n  <shell>bash</shell>\n</environment_context>` }] }),
  ];
  for (let turn = 0; turn < TURNS; turn += 1) {
    const prompt = prose(next, 160);
    records.push(record('turn_context', { cwd, approval_policy: 'on-request', model: 'gpt-5' }));
    records.push(record('event_msg', { type: 'task_started', turn_id: `t${turn}` }));
    records.push(record('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] }));
    records.push(record('event_msg', { type: 'user_message', message: prompt }));
    records.push(record('response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: prose(next, 200) }], encrypted_content: 'x'.repeat(300) }));
    records.push(record('response_item', { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', 'cargo test'] }), call_id: `call_${n}_${turn}` }));
    records.push(record('response_item', { type: 'function_call_output', call_id: `call_${n}_${turn}`, output: prose(next, 900) }));
    const reply = prose(next, 500);
    records.push(record('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: reply }] }));
    records.push(record('event_msg', { type: 'agent_message', message: reply }));
    records.push(record('event_msg', { type: 'task_complete', turn_id: `t${turn}` }));
  }
  return { thread, text: records.join('') };
}

/** Codex: rollouts in `~/.codex/sessions/<y>/<m>/<d>/` over 120 days, a quarter archived and zstd-compressed as Codex archives them. */
export function writeCodex(files, count, next) {
  for (let n = 0; n < count; n += 1) {
    const day = new Date(EPOCH - (n % 120) * 86_400_000);
    const [year, month, date] = [String(day.getUTCFullYear()), pad(day.getUTCMonth() + 1, 2), pad(day.getUTCDate(), 2)];
    const { thread, text } = codexRollout(n, next);
    const name = `rollout-${year}-${month}-${date}T10-00-00-${thread}.jsonl`;
    if (n % 4 === 3) files.write(`.codex/archived_sessions/${name}.zst`, zstdCompressSync(Buffer.from(text)));
    else files.write(`.codex/sessions/${year}/${month}/${date}/${name}`, text);
  }
}

/** Gemini CLI: JSONL chats in `~/.gemini/tmp/<project>/chats/`: metadata with a summary, prompts, replies with thoughts and tool calls; about 5-8 KB. */
export function writeGeminiCli(files, count, next) {
  for (let n = 0; n < count; n += 1) {
    const id = uuidOf(n, 3);
    const start = iso(sessionClock(n).start);
    const project = `.gemini/tmp/app-${n % 10}`;
    if (n < 10) files.write(`${project}/.project_root`, `/work/app-${n % 10}`);
    const records = [line({ sessionId: id, projectHash: 'f'.repeat(64), startTime: start, lastUpdated: start, kind: 'main', summary: prose(next, 30) })];
    for (let turn = 0; turn < TURNS; turn += 1) {
      records.push(line({ id: `${id}-u${turn}`, type: 'user', timestamp: start, content: [{ text: prose(next, 160) }] }));
      const result = [{ functionResponse: { id: `c${turn}`, name: 'run_shell_command', response: { output: prose(next, 900) } } }];
      records.push(
        line({
          id: `${id}-g${turn}`,
          type: 'gemini',
          timestamp: start,
          content: prose(next, 500),
          thoughts: [{ subject: 'plan', description: prose(next, 300), timestamp: start }],
          toolCalls: [{ id: `c${turn}`, name: 'run_shell_command', args: { command: 'make' }, result, status: 'success', timestamp: start }],
          model: 'gemini-2.5-pro',
        }),
      );
    }
    files.write(`${project}/chats/session-${start.slice(0, 16).replace(':', '-')}-${id.slice(0, 8)}.jsonl`, records.join(''));
  }
}

/** Usage fields of a pi assistant message, as its openai-completions provider records them. */
const PI_USAGE = { input: 1200, output: 300, cacheRead: 0, cacheWrite: 0, totalTokens: 1500, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

/**
 * Session `n` as pi entries: its header (`version`), the model and thinking
 * settings, three turns of a prompt, thinking and a tool call, the call's
 * result and a reply, then a `session_info` name in one session of two.
 * OpenClaw's agent is pi's, so its store holds the same entries.
 */
export function piEntries(n, next, { id, cwd, version, clock }) {
  let parent = null;
  let entries = 0;
  const records = [{ type: 'session', version, id, timestamp: iso(clock.start), cwd }];
  const entry = (type, fields) => {
    entries += 1;
    const entryId = (n * 64 + entries).toString(16).padStart(8, '0');
    records.push({ type, id: entryId, parentId: parent, timestamp: clock.tick(), ...fields });
    parent = entryId;
  };
  const assistant = (content, stopReason) => ({ role: 'assistant', content, api: 'openai-completions', provider: 'openai', model: 'gpt-5', usage: PI_USAGE, stopReason, timestamp: clock.now() });
  entry('model_change', { provider: 'openai', modelId: 'gpt-5' });
  entry('thinking_level_change', { thinkingLevel: 'medium' });
  for (let turn = 0; turn < TURNS; turn += 1) {
    const call = `call_${n}_${turn}`;
    entry('message', { message: { role: 'user', content: [{ type: 'text', text: prose(next, 160) }], timestamp: clock.now() } });
    entry('message', { message: assistant([{ type: 'thinking', thinking: prose(next, 300) }, { type: 'toolCall', id: call, name: 'bash', arguments: { command: 'npm test' } }], 'toolUse') });
    entry('message', { message: { role: 'toolResult', toolCallId: call, toolName: 'bash', content: [{ type: 'text', text: prose(next, 900) }], isError: false, timestamp: clock.now() } });
    entry('message', { message: assistant([{ type: 'text', text: prose(next, 500) }], 'stop') });
  }
  if (n % 2 === 0) entry('session_info', { name: prose(next, 30) });
  return records;
}

/** pi: `~/.pi/agent/sessions/--<cwd>--/<start>_<id>.jsonl`, a tree of entries (settings, messages with thinking and tool calls, tool results), half named by `session_info`. */
export function writePi(files, count, next) {
  for (let n = 0; n < count; n += 1) {
    const id = uuidOf(n, 4);
    const cwd = cwdOf(n, 50);
    const clock = sessionClock(n);
    const records = piEntries(n, next, { id, cwd, version: 3, clock });
    const stamp = iso(clock.start).replace(/[:.]/g, '-');
    files.write(`.pi/agent/sessions/--${cwd.slice(1).replaceAll('/', '-')}--/${stamp}_${id}.jsonl`, records.map(line).join(''));
  }
}

/** Qwen Code: `~/.qwen/projects/<cwd>/chats/<id>.jsonl`, a chain of user, assistant (thought and function-call parts), tool-result and telemetry lines, half titled by `custom_title`. */
export function writeQwenCode(files, count, next) {
  for (let n = 0; n < count; n += 1) {
    const sessionId = uuidOf(n, 5);
    const cwd = cwdOf(n, 50);
    const clock = sessionClock(n);
    let parentUuid = null;
    let lines = 0;
    const records = [];
    const record = (type, provenance, fields) => {
      lines += 1;
      const uuid = `${sessionId.slice(0, 8)}-r${lines}`;
      records.push(line({ uuid, parentUuid, sessionId, timestamp: clock.tick(), type, provenance, cwd, version: '0.24.4', ...fields }));
      parentUuid = uuid;
    };
    const telemetry = (uiEvent) => record('system', 'system', { subtype: 'ui_telemetry', systemPayload: { uiEvent } });
    for (let turn = 0; turn < TURNS; turn += 1) {
      const call = `call_${n}_${turn}`;
      record('user', 'real_user', { message: { role: 'user', parts: [{ text: prose(next, 160) }] } });
      record('system', 'system', { subtype: 'attribution_snapshot', systemPayload: { snapshot: { type: 'attribution-snapshot', version: 1, surface: 'cli', fileStates: {}, promptCount: turn + 1 } } });
      telemetry({ 'event.name': 'qwen-code.api_response', response_id: `chatcmpl_${turn}a`, model: 'qwen3-coder-plus', status_code: 200, duration_ms: 1693 });
      const parts = [{ text: prose(next, 300), thought: true }, { functionCall: { id: call, name: 'run_shell_command', args: { command: 'npm test', description: 'run the tests' } } }];
      record('assistant', 'assistant_output', { model: 'qwen3-coder-plus', message: { role: 'model', parts } });
      const output = prose(next, 900);
      record('tool_result', 'tool_result', { message: { role: 'user', parts: [{ functionResponse: { id: call, name: 'run_shell_command', response: { output } } }] }, toolCallResult: { callId: call, status: 'success', executionStatus: 'success' } });
      record('assistant', 'assistant_output', { model: 'qwen3-coder-plus', message: { role: 'model', parts: [{ text: prose(next, 500) }] } });
    }
    if (n % 2 === 0) record('system', 'system', { subtype: 'custom_title', systemPayload: { customTitle: prose(next, 30), titleSource: 'auto' } });
    files.write(`.qwen/projects/${dashed(cwd)}/chats/${sessionId}.jsonl`, records.join(''));
  }
}

/** Factory Droid: `~/.factory/sessions/<cwd>/<id>.jsonl` and its `.settings.json`: `session_start` titled by the first prompt, an injected `context-` message, Anthropic-style blocks, turn outcomes. */
export function writeFactoryDroid(files, count, next) {
  for (let n = 0; n < count; n += 1) {
    const id = uuidOf(n, 8);
    const cwd = cwdOf(n, 50);
    const clock = sessionClock(n);
    const prompts = Array.from({ length: TURNS }, () => prose(next, 160));
    let parentId;
    let messages = 0;
    const records = [line({ type: 'session_start', id, title: prompts[0].slice(0, 80), owner: 'unknown', version: 2, cwd, hostId: uuidOf(0, 8), isSessionTitleManuallySet: false })];
    const message = (role, content, messageId = `${id.slice(0, 8)}-m${(messages += 1)}`) => {
      records.push(line({ type: 'message', id: messageId, ...(parentId === undefined ? {} : { parentId }), timestamp: clock.tick(), message: { role, content } }));
      parentId = messageId;
      return messageId;
    };
    message('user', [{ type: 'text', text: `<system-reminder>\n${prose(next, 600)}\n</system-reminder>` }], `context-${id}`);
    for (let turn = 0; turn < TURNS; turn += 1) {
      const call = `call_${n}_${turn}`;
      const prompt = message('user', [{ type: 'text', text: prompts[turn] }]);
      message('assistant', [{ type: 'tool_use', id: call, name: 'Execute', input: { command: 'npm test' } }]);
      message('user', [{ type: 'tool_result', tool_use_id: call, is_error: false, content: prose(next, 900) }]);
      message('assistant', [{ type: 'text', text: prose(next, 500) }]);
      records.push(line({ type: 'agent_turn_outcome', turnId: prompt, reason: 'completed', resultKind: 'text' }));
    }
    const folder = `.factory/sessions/${dashed(cwd)}`;
    files.write(`${folder}/${id}.jsonl`, records.join(''));
    files.write(`${folder}/${id}.settings.json`, JSON.stringify({ model: 'claude-sonnet-4-5', reasoningEffort: 'none', interactionMode: 'auto', autonomyLevel: 'low', tags: [{ name: 'exec' }] }, null, 2));
  }
}

/** Copilot CLI: `~/.copilot/session-state/<id>/events.jsonl` (session, user, reasoning, assistant, tool and turn events) and `workspace.yaml` named by the first prompt. */
export function writeCopilot(files, count, next) {
  for (let n = 0; n < count; n += 1) {
    const sessionId = uuidOf(n, 6);
    const cwd = cwdOf(n, 50);
    const clock = sessionClock(n);
    let parentId = null;
    let events = 0;
    const records = [];
    const event = (type, data) => {
      events += 1;
      const id = `${sessionId.slice(0, 8)}-e${events}`;
      records.push(line({ type, data, id, timestamp: clock.tick(), parentId }));
      parentId = id;
    };
    event('session.start', { sessionId, version: 1, producer: 'copilot-agent', copilotVersion: '1.0.102', startTime: iso(clock.start), selectedModel: 'gpt-5', reasoningEffort: 'medium', context: { cwd }, alreadyInUse: false });
    let name;
    for (let turn = 0; turn < TURNS; turn += 1) {
      const prompt = prose(next, 160);
      name ??= prompt;
      const interactionId = uuidOf(n * TURNS + turn, 7);
      const call = `call_${n}_${turn}`;
      event('user.message', { content: prompt, transformedContent: `<current_datetime>${iso(clock.now())}</current_datetime>\n\n${prompt}`, messageId: `${interactionId}-u`, interactionId, turnId: '0' });
      event('assistant.turn_start', { turnId: '0', interactionId });
      event('assistant.reasoning', { reasoningId: `${interactionId}-r`, content: prose(next, 300) });
      event('assistant.message', { messageId: `${interactionId}-a`, model: 'gpt-5', content: '', toolRequests: [{ toolCallId: call, name: 'bash', arguments: { command: 'npm test', description: 'run the tests' }, type: 'function' }], interactionId, turnId: '0' });
      event('tool.execution_start', { toolCallId: call, toolName: 'bash', arguments: { command: 'npm test', description: 'run the tests' }, turnId: '0' });
      event('tool.execution_complete', { toolCallId: call, interactionId, turnId: '0', success: true, result: { content: prose(next, 900) } });
      event('assistant.turn_end', { turnId: '0' });
      event('assistant.turn_start', { turnId: '1', interactionId });
      event('assistant.message', { messageId: `${interactionId}-b`, model: 'gpt-5', content: prose(next, 500), toolRequests: [], interactionId, turnId: '1' });
      event('assistant.turn_end', { turnId: '1' });
    }
    const folder = `.copilot/session-state/${sessionId}`;
    files.write(`${folder}/events.jsonl`, records.join(''));
    const workspace = [`id: ${sessionId}`, `cwd: ${cwd}`, 'client_name: github/cli', `name: '${name}'`, 'user_named: false', 'summary_count: 0', 'fork_count: 0', `created_at: ${iso(clock.start)}`, `updated_at: ${iso(clock.now())}`];
    files.write(`${folder}/workspace.yaml`, `${workspace.join('\n')}\n`);
  }
}
