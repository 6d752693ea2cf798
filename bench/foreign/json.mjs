/**
 * The corpus's agents that keep a session as JSON documents rewritten
 * whole (../shared/formats/cline.md, continue.md), indented as they write
 * them: three turns of a prompt, a tool call and its output and a reply.
 */
import { prose } from '../lib/text.mjs';
import { cwdOf, iso, sessionClock, uuidOf } from './records.mjs';

const TURNS = 3;
const json = (value) => `${JSON.stringify(value, null, 2)}\n`;

/** One Cline conversation: `<user_input>`-wrapped prompts, tool use and results, replies; the first prompt. */
function clineMessages(n, next, clock) {
  const messages = [];
  let first;
  for (let turn = 0; turn < TURNS; turn += 1) {
    const prompt = prose(next, 160);
    first ??= prompt;
    const call = `call_${n}_${turn}`;
    const metrics = { inputTokens: 1200, outputTokens: 300, cacheReadTokens: 0, cacheWriteTokens: 0 };
    const reply = (id, content) => ({ id, role: 'assistant', content, ts: clock.tickMs(), modelInfo: { id: 'claude-sonnet-4-5', provider: 'anthropic' }, metrics });
    messages.push({ id: uuidOf(n * TURNS + turn, 7), role: 'user', content: [{ type: 'text', text: `<user_input mode="act">${prompt}</user_input>` }], ts: clock.tickMs() });
    messages.push(reply(`msg_${n}_${turn}a`, [{ type: 'tool_use', id: call, name: 'run_commands', input: { commands: ['npm test'] } }]));
    messages.push({ id: `msg_${n}_${turn}r`, role: 'user', content: [{ type: 'tool_result', tool_use_id: call, name: 'run_commands', content: [{ query: 'npm test', result: prose(next, 900), success: true }] }], ts: clock.tickMs() });
    messages.push(reply(`msg_${n}_${turn}b`, [{ type: 'text', text: prose(next, 500) }]));
  }
  return { messages, first };
}

/** Cline: `~/.cline/data/sessions/<id>/`, its manifest `<id>.json` (titled by the first prompt) and messages `<id>.messages.json`. */
export function writeCline(files, count, next) {
  for (let n = 0; n < count; n += 1) {
    const clock = sessionClock(n);
    const id = `${clock.start}_${n.toString(36).padStart(5, '0')}`;
    const cwd = cwdOf(n, 50);
    const folder = `.cline/data/sessions/${id}`;
    const { messages, first } = clineMessages(n, next, clock);
    const origin = { source: 'cli', mode: 'user', sessionId: id, version: '3.0.65' };
    files.write(`${folder}/${id}.messages.json`, json({ version: 1, updated_at: iso(clock.now()), agent: 'lead', sessionId: id, origin, messages }));
    files.write(
      `${folder}/${id}.json`,
      json({
        version: 1, session_id: id, source: 'cli', pid: 1000 + n, started_at: iso(clock.start), ended_at: iso(clock.now()), exit_code: 0, status: 'completed',
        interactive: false, provider: 'anthropic', model: 'claude-sonnet-4-5', cwd, workspace_root: cwd, enable_tools: true, prompt: first,
        metadata: { sessionHistoryOrigin: { mode: 'user', version: '3.0.65' }, title: first, totalCost: 0 },
        messages_path: `/home/user/${folder}/${id}.messages.json`,
      }),
    );
  }
}

/** One Continue history: prompts with their editor state, a tool call with its state and output, replies. */
function continueHistory(n, next) {
  const history = [];
  const usage = { prompt_tokens: 1200, completion_tokens: 300, total_tokens: 1500, model: 'claude-sonnet-4-5' };
  for (let turn = 0; turn < TURNS; turn += 1) {
    const prompt = prose(next, 160);
    const toolCall = { id: `call_${n}_${turn}`, type: 'function', function: { name: 'Bash', arguments: '{"command":"npm test"}' } };
    const output = [{ content: prose(next, 900), name: 'Tool Result', description: 'Tool execution result' }];
    history.push({ message: { role: 'user', content: prompt }, contextItems: [], editorState: prompt });
    history.push({ message: { role: 'assistant', content: '', toolCalls: [toolCall], usage }, contextItems: [], toolCallStates: [{ toolCallId: toolCall.id, toolCall, status: 'done', parsedArgs: { command: 'npm test' }, output }] });
    history.push({ message: { role: 'assistant', content: prose(next, 500), usage }, contextItems: [] });
  }
  return history;
}

/** Continue: `~/.continue/sessions/<id>.json` each, and the `sessions.json` index of them all; half keep "Untitled Session", as `cn -p` leaves them. */
export function writeContinue(files, count, next) {
  const index = [];
  for (let n = 0; n < count; n += 1) {
    const sessionId = uuidOf(n, 9);
    const workspaceDirectory = cwdOf(n, 50);
    const title = n % 2 === 0 ? prose(next, 30) : 'Untitled Session';
    const history = continueHistory(n, next);
    files.write(`.continue/sessions/${sessionId}.json`, json({ sessionId, title, workspaceDirectory, history, usage: { totalCost: 0, promptTokens: 3600, completionTokens: 900 } }));
    index.push({ sessionId, title, dateCreated: String(sessionClock(n).start), workspaceDirectory, messageCount: history.length });
  }
  files.write('.continue/sessions/sessions.json', json(index));
}
