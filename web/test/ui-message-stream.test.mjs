// Every recorded stream, encoded by streamkit.web, read by the real AI SDK client.
//
// STREAMKIT_UI_CASES names a folder written by tests/support/web_cases.py: for each
// recording, <case>.sse (the bytes streamkit sends) and <case>.json (what the
// final ChatResponse holds). Each .sse goes, in small network chunks, through
// the `ai` package's own parseJsonEventStream + uiMessageChunkSchema (every
// chunk must validate) and readUIMessageStream; the assembled UI message must
// hold exactly the response's text, reasoning, tool calls and files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema } from 'ai';

const CASES = process.env.STREAMKIT_UI_CASES;
const NETWORK_CHUNK = 13; // splits frames, JSON and UTF-8 sequences anywhere

function byteStream(bytes, size) {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.subarray(offset, offset + size));
      offset += size;
    },
  });
}

// The chunks as the SDK's transports read them: a chunk that fails the schema
// is an error, as it is in DefaultChatTransport.
async function readChunks(bytes) {
  const chunks = [];
  const parsed = parseJsonEventStream({ stream: byteStream(bytes, NETWORK_CHUNK), schema: uiMessageChunkSchema });
  for await (const result of parsed) {
    assert.ok(result.success, `a chunk failed the AI SDK schema: ${result.error} in ${result.rawValue ? JSON.stringify(result.rawValue) : ''}`);
    chunks.push(result.value);
  }
  return chunks;
}

async function assemble(chunks) {
  const errors = [];
  const stream = new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let message;
  for await (const snapshot of readUIMessageStream({ stream, onError: e => errors.push(e.message) })) {
    message = snapshot;
  }
  return { message, errors };
}

function fileView(part) {
  const mark = ';base64,';
  if (!part.url.startsWith('data:')) return { type: 'file', mediaType: part.mediaType, url: part.url };
  const comma = part.url.indexOf(mark);
  assert.equal(part.url.slice(5, comma), part.mediaType, 'the data URL names the part media type');
  const bytes = Buffer.from(part.url.slice(comma + mark.length), 'base64');
  return {
    type: 'file',
    mediaType: part.mediaType,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    bytes: bytes.length,
    transcript: part.providerMetadata?.streamkit?.transcript ?? null,
  };
}

// A UI part in the expectation's terms (sources are counted apart).
function view(part) {
  const meta = part.providerMetadata?.streamkit ?? {};
  if (part.type === 'text') {
    assert.equal(part.state, 'done', 'every text part is ended');
    return { type: 'text', text: part.text, refusal: meta.refusal === true };
  }
  if (part.type === 'reasoning') {
    assert.equal(part.state, 'done', 'every reasoning part is ended');
    return {
      type: 'reasoning', text: part.text, signature: meta.signature ?? null,
      encrypted: meta.encrypted ?? null, redacted: meta.redacted === true,
    };
  }
  if (part.type.startsWith('tool-')) {
    const name = part.type.slice('tool-'.length);
    if (part.state === 'input-available') return { type: 'tool', name, valid: true, input: part.input };
    assert.equal(part.state, 'output-error', `tool part ${name} ends available or in error, not ${part.state}`);
    return { type: 'tool', name, valid: false, rawInput: part.rawInput };
  }
  if (part.type === 'file') return fileView(part);
  if (part.type === 'data-raw') return { type: 'raw', kind: part.data.kind };
  return { type: `unexpected ${part.type}` };
}

// A partial value (a dump of the fields known so far) agrees with the final one:
// strings are prefixes, lists only grow, every other value is equal.
function consistent(part, whole, where = '') {
  if (part === null || part === undefined) return;
  if (typeof part === 'string') {
    assert.ok(typeof whole === 'string' && whole.startsWith(part), `${where}: ${JSON.stringify(part)} is no prefix`);
  } else if (Array.isArray(part)) {
    assert.ok(Array.isArray(whole) && part.length <= whole.length, `${where}: the list shrank`);
    part.forEach((item, index) => consistent(item, whole[index], `${where}[${index}]`));
  } else if (typeof part === 'object') {
    for (const [key, value] of Object.entries(part)) {
      assert.ok(whole !== null && typeof whole === 'object' && key in whole, `${where}.${key} is not in the final value`);
      consistent(value, whole[key], `${where}.${key}`);
    }
  } else {
    assert.equal(part, whole, where);
  }
}

// The data-output chunks of a structured case: one id, each streaming object
// consistent with the next, the last one what the part holds at the end.
function checkOutput(chunks, message, expected) {
  const outputs = chunks.filter(chunk => chunk.type === 'data-output');
  const parts = message.parts.filter(part => part.type === 'data-output');
  if (expected === undefined || expected === null) {
    assert.equal(outputs.length, 0, 'no data-output without output=');
    return;
  }
  assert.ok(outputs.length > 10, `only ${outputs.length} data-output chunks`);
  assert.equal(new Set(outputs.map(chunk => chunk.id)).size, 1, 'one part id per step');
  assert.equal(parts.length, 1, 'the client keeps one data-output part, updated in place');
  const streaming = outputs.filter(chunk => chunk.data.state === 'streaming').map(chunk => chunk.data.object);
  for (let i = 1; i < streaming.length; i += 1) consistent(streaming[i - 1], streaming[i], 'object');
  const last = parts[0].data;
  assert.deepEqual(last, outputs.at(-1).data);
  assert.equal(last.state, expected.state);
  if (expected.state === 'done') {
    assert.deepEqual(last.object, expected.object);
    for (const object of streaming) consistent(object, expected.object, 'object');
  } else {
    assert.equal(last.errorText, expected.errorText);
    consistent(last.object, streaming.at(-1), 'object');
  }
}

const names = CASES
  ? readdirSync(CASES).filter(name => name.endsWith('.json')).map(name => name.slice(0, -'.json'.length)).sort()
  : [];

test('the cases folder is given and holds cases', () => {
  assert.ok(CASES, 'set STREAMKIT_UI_CASES to a folder written by tests/support/web_cases.py');
  assert.ok(names.length > 10, `only ${names.length} cases in ${CASES}`);
});

for (const name of names) {
  test(name, async () => {
    const expected = JSON.parse(readFileSync(join(CASES, `${name}.json`), 'utf8'));
    const bytes = readFileSync(join(CASES, `${name}.sse`));
    const chunks = await readChunks(bytes);
    const types = chunks.map(chunk => chunk.type);
    assert.equal(types[0], 'start');
    assert.equal(types.at(-1), 'finish');
    assert.equal(types.filter(type => type === 'finish').length, 1);

    const { message, errors } = await assemble(chunks);
    checkOutput(chunks, message, expected.output);
    const parts = message.parts.filter(part => !['step-start', 'source-url', 'source-document', 'data-output'].includes(part.type));
    // A file part is placed when its bytes are complete (at its block's end),
    // every other part when its block starts: files are compared as a set.
    const isFile = part => part.type === 'file';
    const actual = parts.map(view);
    assert.deepEqual(actual.filter(p => !isFile(p)), expected.parts.filter(p => !isFile(p)));
    const sorted = list => list.filter(isFile).map(p => JSON.stringify(p)).sort();
    assert.deepEqual(sorted(actual), sorted(expected.parts));
    const sources = message.parts.filter(part => part.type === 'source-url' || part.type === 'source-document');
    assert.equal(sources.length, expected.sources, 'one source part per citation');
    assert.deepEqual(errors, expected.error === null ? [] : [expected.error]);
    assert.equal(message.metadata?.finishReason ?? null, expected.finishReason);
    assert.equal(message.metadata?.usage?.output_tokens ?? null, expected.outputTokens);
  });
}
