// The AI SDK's own chat client against a server: `node chat-client.mjs URL...`.
//
// For each URL, one user message goes out twice: once through `fetch` (what
// the HTTP response is: status, content type, body) and once through the `ai`
// package's framework-free Chat (AbstractChat + DefaultChatTransport, as a
// page uses it). Prints one JSON line per URL with what the Chat ended with:
// its status, its error, and the assistant message's parts and metadata.
// tests/web/test_response.py runs it.
import { AbstractChat, DefaultChatTransport } from 'ai';

class State {
  constructor() { this.status = 'ready'; this.error = undefined; this.messages = []; }
  pushMessage(message) { this.messages = this.messages.concat(message); }
  popMessage() { this.messages = this.messages.slice(0, -1); }
  replaceMessage(index, message) {
    this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)];
  }
  snapshot(thing) { return structuredClone(thing); }
}

class NodeChat extends AbstractChat {
  constructor(api) { super({ transport: new DefaultChatTransport({ api }), state: new State() }); }
}

const TEXT = 'Weather in Paris?';

async function raw(url) {
  const message = { id: 'u1', role: 'user', parts: [{ type: 'text', text: TEXT }] };
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'raw', messages: [message], trigger: 'submit-message' }),
  });
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    protocol: response.headers.get('x-vercel-ai-ui-message-stream'),
    retryAfter: response.headers.get('retry-after'),
    body: await response.text(),
  };
}

function part(p) {
  if (p.type === 'text' || p.type === 'reasoning') return { type: p.type, text: p.text, state: p.state };
  if (p.type.startsWith('tool-')) return { type: 'tool', name: p.type.slice(5), state: p.state, input: p.input };
  return { type: p.type };
}

async function chat(url) {
  const chat = new NodeChat(url);
  await chat.sendMessage({ text: TEXT });
  const assistant = chat.messages.filter(m => m.role === 'assistant').at(-1);
  return {
    status: chat.status,
    error: chat.error ? chat.error.message : null,
    parts: assistant ? assistant.parts.filter(p => p.type !== 'step-start').map(part) : null,
    metadata: assistant?.metadata ?? null,
  };
}

for (const url of process.argv.slice(2)) {
  console.log(JSON.stringify({ url, raw: await raw(url), chat: await chat(url) }));
}
