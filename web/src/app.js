// The demo page: the AI SDK's framework-free chat (AbstractChat + DefaultChatTransport
// from the `ai` package) reading streamkit.web's UI message stream from /api/chat.
//
// Thinking is a collapsible <details>, text is rendered markdown-ish (bold, inline
// code, bullets), a tool call shows its arguments growing as they stream, and audio
// plays while it arrives (transient `data-audio` chunks scheduled with Web Audio),
// then sits in an <audio> element holding the file part's data URL.
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

function renderTool(part) {
  const box = element('div', 'tool');
  box.dataset.state = part.state;
  const name = part.type === 'dynamic-tool' ? part.toolName : part.type.slice('tool-'.length);
  box.append(element('span', 'tool-name', escapeHtml(name)));
  box.append(element('span', 'tool-state', escapeHtml(part.state)));
  const args = element('pre', 'tool-args');
  if (part.state === 'output-error') args.textContent = String(part.rawInput ?? '');
  else args.textContent = part.input === undefined ? '' : JSON.stringify(part.input, null, 2);
  box.append(args);
  if (part.errorText) box.append(element('div', 'tool-error', escapeHtml(part.errorText)));
  return box;
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
    if (message.role === 'assistant' && message.metadata?.usage) {
      const usage = message.metadata.usage;
      box.append(element('div', 'usage', escapeHtml(
        `finish: ${message.metadata.finishReason} · ${usage.input_tokens ?? '?'} in / ${usage.output_tokens ?? '?'} out tokens`)));
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
