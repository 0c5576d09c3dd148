// The demo page: the AI SDK's framework-free chat (AbstractChat + DefaultChatTransport
// from the `ai` package) reading streamkit.web's UI message stream from /api/chat.
//
// What the user types goes to the server's agent loop (streamkit.web.demo). Thinking
// is a collapsible <details>, text is rendered markdown-ish (bold, inline code,
// bullets), a tool call is a card (its name, its state in words, its arguments
// growing as they stream, then the result the server's tool returned), usage is
// summed over the message's steps, and audio plays while it arrives (transient
// `data-audio` chunks scheduled with Web Audio), then sits in an <audio> element
// holding the file part's data URL.
import { AbstractChat, DefaultChatTransport } from 'ai';

const $ = selector => document.querySelector(selector);

// ChatState the AbstractChat writes into; every change schedules one repaint.
class PageState {
  constructor(onChange) {
    this.onChange = onChange;
    this._status = 'ready';
    this._error = undefined;
    this.messages = [];
  }
  get status() { return this._status; }
  set status(value) { this._status = value; this.onChange(); }
  get error() { return this._error; }
  set error(value) { this._error = value; this.onChange(); }
  pushMessage(message) { this.messages = this.messages.concat(message); this.onChange(); }
  popMessage() { this.messages = this.messages.slice(0, -1); this.onChange(); }
  replaceMessage(index, message) {
    this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)];
    this.onChange();
  }
  snapshot(thing) { return structuredClone(thing); }
}

class PageChat extends AbstractChat {
  constructor(options) {
    const state = new PageState(() => options.onChange());
    super({ ...options, state });
  }
  get messages() { return this.state.messages; }
}

// ---------------------------------------------------------------- live audio

// Raw 16-bit PCM deltas played back to back as they arrive.
class LivePlayer {
  constructor() {
    this.context = null;
    this.at = 0;
    this.carry = new Uint8Array(0);
  }
  start() {
    try {
      this.context ??= new AudioContext();
      this.context.resume();
    } catch {
      this.context = null; // no audio output: the <audio> element still gets the file
    }
  }
  play({ mediaType, base64 }) {
    if (!this.context || !/^audio\/(pcm|l16)/i.test(mediaType)) return;
    const rate = Number(/rate=(\d+)/i.exec(mediaType)?.[1] ?? 24000);
    const fresh = Uint8Array.from(atob(base64), c => c.charCodeAt(0));
    const bytes = new Uint8Array(this.carry.length + fresh.length);
    bytes.set(this.carry);
    bytes.set(fresh, this.carry.length);
    const usable = bytes.length - (bytes.length % 2); // a sample may straddle two deltas
    this.carry = bytes.slice(usable);
    if (usable === 0) return;
    const view = new DataView(bytes.buffer, 0, usable);
    const buffer = this.context.createBuffer(1, usable / 2, rate);
    const channel = buffer.getChannelData(0);
    for (let i = 0; i < usable / 2; i++) channel[i] = view.getInt16(i * 2, true) / 32768;
    const source = this.context.createBufferSource();
    source.buffer = buffer;
    source.connect(this.context.destination);
    this.at = Math.max(this.at, this.context.currentTime + 0.05);
    source.start(this.at);
    this.at += buffer.duration;
    window.streamkitLiveAudioSeconds = (window.streamkitLiveAudioSeconds ?? 0) + buffer.duration;
  }
}

// ---------------------------------------------------------------- rendering

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

// Markdown-ish, on escaped text: **bold**, `code`, "- " bullets. Newlines stay
// (the element is white-space: pre-wrap), so what is shown is the text itself.
export function markdownish(text) {
  return escapeHtml(text)
    .replace(/\*\*([^*\n]+)\*\*/g, '<strong>$1</strong>')
    .replace(/`([^`\n]+)`/g, '<code>$1</code>')
    .replace(/^- /gm, '• ');
}

function element(tag, className, html) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (html !== undefined) node.innerHTML = html;
  return node;
}

// Open while it streams; afterwards only if the reader opened it (remembered by key).
function renderReasoning(part, key, openKeys) {
  const details = element('details', 'thinking');
  details.open = part.state === 'streaming' || openKeys.has(key);
  details.addEventListener('click', event => {
    if (event.target.tagName !== 'SUMMARY') return;
    if (details.open) openKeys.delete(key); else openKeys.add(key); // before the toggle
  });
  const meta = part.providerMetadata?.streamkit ?? {};
  const label = meta.redacted ? 'Thinking (redacted)' : meta.signature ? 'Thinking (signed)' : 'Thinking';
  details.append(element('summary', '', escapeHtml(label)));
  const body = element('div', 'thinking-text');
  body.textContent = part.text;
  details.append(body);
  return details;
}

// What a tool part's state means to a reader (the AI SDK's words are states, not labels).
const TOOL_LABELS = {
  'input-streaming': 'Preparing the call…',
  'input-available': 'Running…',
  'approval-requested': 'Waiting for approval',
  'approval-responded': 'Approval given',
  'output-available': 'Done',
  'output-error': 'Failed',
  'output-denied': 'Denied',
};

// "get_weather" -> "Get weather"; "GetWeatherArgs" -> "Get weather args".
export function toolTitle(name) {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').trim().toLowerCase();
  return words ? words[0].toUpperCase() + words.slice(1) : name;
}

function formatOutput(output) {
  return typeof output === 'string' ? output : JSON.stringify(output, null, 2);
}

// A tool call as a card: what it is, its state in words, its arguments as they
// stream, then its result (or why it failed).
function renderTool(part) {
  const card = element('section', 'tool');
  card.dataset.state = part.state;
  const name = part.type === 'dynamic-tool' ? part.toolName : part.type.slice('tool-'.length);
  const head = element('header', 'tool-head');
  head.append(element('span', 'tool-title', escapeHtml(toolTitle(name))));
  head.append(element('code', 'tool-name', escapeHtml(name)));
  head.append(element('span', 'tool-state', escapeHtml(TOOL_LABELS[part.state] ?? part.state)));
  card.append(head);
  const args = element('pre', 'tool-args');
  if (part.state === 'output-error' && part.input === undefined) args.textContent = String(part.rawInput ?? '');
  else args.textContent = part.input === undefined ? '' : JSON.stringify(part.input, null, 2);
  card.append(args);
  if (part.state === 'output-available') {
    const result = element('div', 'tool-result');
    result.append(element('span', 'tool-result-label', 'Result'));
    const value = element('pre', 'tool-output');
    value.textContent = formatOutput(part.output);
    result.append(value);
    card.append(result);
  }
  if (part.errorText) card.append(element('div', 'tool-error', escapeHtml(part.errorText)));
  return card;
}

// The tokens of every step of a message (each model call reports its own).
export function summedUsage(metadata) {
  const steps = metadata?.steps ?? (metadata ? [metadata] : []);
  const total = { input: 0, output: 0, steps: 0, known: false };
  for (const step of steps) {
    total.steps += 1;
    if (!step.usage) continue;
    total.known = true;
    total.input += step.usage.input_tokens ?? 0;
    total.output += step.usage.output_tokens ?? 0;
  }
  return total;
}

function renderFile(part, audioCache) {
  const box = element('div', 'file');
  if (part.mediaType.startsWith('audio/')) {
    // Keep one <audio> per part across repaints so playback is not reset.
    let audio = audioCache.get(part.url);
    if (!audio) {
      audio = element('audio', 'audio');
      audio.controls = true;
      audio.preload = 'auto';
      audio.src = part.url;
      audioCache.set(part.url, audio);
    }
    box.append(audio);
    const transcript = part.providerMetadata?.streamkit?.transcript;
    if (transcript) {
      const line = element('div', 'transcript');
      line.textContent = transcript;
      box.append(line);
    }
  } else if (part.mediaType.startsWith('image/')) {
    const image = element('img', 'image');
    image.src = part.url;
    box.append(image);
  } else {
    box.append(element('a', 'download', escapeHtml(part.mediaType))).href = part.url;
  }
  return box;
}

function renderPart(part, key, audioCache) {
  if (part.type === 'step-start') return element('hr', 'step');
  if (part.type === 'reasoning') return renderReasoning(part, key, openKeys);
  if (part.type === 'text') return element('div', 'text', markdownish(part.text));
  if (part.type === 'file') return renderFile(part, audioCache);
  if (part.type === 'source-url') return element('a', 'source', escapeHtml(part.title ?? part.url));
  if (part.type.startsWith('tool-') || part.type === 'dynamic-tool') return renderTool(part);
  return null;
}

function render(chat, audioCache) {
  const list = $('#messages');
  list.replaceChildren();
  for (const message of chat.messages) {
    const box = element('article', `message ${message.role}`);
    box.dataset.id = message.id;
    for (const [index, part] of message.parts.entries()) {
      const node = renderPart(part, `${message.id}:${index}`, audioCache);
      if (node) box.append(node);
    }
    if (message.role === 'assistant' && message.metadata) {
      const usage = summedUsage(message.metadata);
      const line = element('div', 'usage');
      line.dataset.input = String(usage.input);
      line.dataset.output = String(usage.output);
      line.dataset.steps = String(usage.steps);
      const steps = usage.steps === 1 ? '1 step' : `${usage.steps} steps`;
      const tokens = usage.known ? `${usage.input.toLocaleString('en')} in / ${usage.output.toLocaleString('en')} out tokens` : 'usage not reported';
      line.textContent = `${steps} · ${tokens} · finish: ${message.metadata.finishReason}`;
      box.append(line);
    }
    list.append(box);
  }
  document.body.dataset.status = chat.status;
  document.body.dataset.finished = String(finishedCount);
  $('#status').textContent = chat.error ? `error: ${chat.error.message}` : chat.status;
  $('#send').disabled = chat.status === 'submitted' || chat.status === 'streaming';
}

// ---------------------------------------------------------------- wiring

const audioCache = new Map();
const openKeys = new Set();
const player = new LivePlayer();
let queued = false;
// Requests finished so far. The AI SDK sets the status to 'ready' just before it
// calls onFinish, but the page only shows a state on its next paint: the count is
// written to the page by that same paint, so `data-finished` never runs ahead of
// the status, messages and usage it stands for.
let finishedCount = 0;
// One repaint per animation frame, however many changes come before it.
function schedule() {
  if (queued) return;
  queued = true;
  requestAnimationFrame(() => { queued = false; render(chat, audioCache); });
}
const chat = new PageChat({
  transport: new DefaultChatTransport({ api: '/api/chat' }),
  onChange: schedule,
  onData: part => { if (part.type === 'data-audio') player.play(part.data); },
  onFinish: () => { finishedCount += 1; schedule(); },
});

$('#composer').addEventListener('submit', event => {
  event.preventDefault();
  const input = $('#prompt');
  const text = input.value.trim() || input.placeholder;
  input.value = '';
  player.start();
  chat.sendMessage({ text });
});
render(chat, audioCache);
window.streamkitChat = chat;
