// `kazeia serve` through the official openai client for Node.js: models, chat and completions,
// plain and streamed (the streamed deltas concatenate to the plain answer for the same greedy or
// seeded request), usage with cached prompt tokens, a tool conversation (tools, an assistant's
// tool_calls, a tool result) and its prefix reuse, stop strings, errors as the client's error
// classes, and a clean exit on SIGTERM.
// usage: node openai_client.mjs KAZEIA_BINARY MODEL.gguf   (CTest: serve_openai_client)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import OpenAI from 'openai';

const [kazeia, modelFile] = process.argv.slice(2);
const modelId = path.basename(modelFile, '.gguf');
const apiKey = 'test-key';

const server = spawn(kazeia, ['serve', '-m', modelFile, '--port', '0', '--api-key', apiKey,
                              '-c', '1024', '-t', '1'],
                     { stdio: ['ignore', 'pipe', 'inherit'] });
const baseURL = await new Promise((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (d) => {
    out += d;
    const m = out.match(/listening on (http:\/\/\S+)/);
    if (m) resolve(m[1] + '/v1');
  });
  server.on('exit', (code) => reject(new Error(`kazeia serve exited with ${code}`)));
});
const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });

async function check(name, fn) {
  try {
    await fn();
  } catch (e) {
    server.kill('SIGKILL');  // else it would hold CTest's output pipe open
    throw e;
  }
  console.log(`ok - ${name}`);
}

// The text, finish reason and usage of a streamed request.
async function collect(stream, field) {
  let text = '', finish = null, usage = null, chunks = 0;
  for await (const chunk of stream) {
    ++chunks;
    if (chunk.usage) usage = chunk.usage;
    for (const c of chunk.choices) {
      text += field(c) ?? '';
      if (c.finish_reason) finish = c.finish_reason;
    }
  }
  return { text, finish, usage, chunks };
}

function checkUsage(usage, maxTokens) {
  assert.ok(usage.prompt_tokens > 0);
  assert.ok(usage.completion_tokens >= 1 && usage.completion_tokens <= maxTokens);
  assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);
  assert.equal(typeof usage.prompt_tokens_details.cached_tokens, 'number');
}

await check('models', async () => {
  const ids = [];
  for await (const m of client.models.list()) ids.push(m.id);
  assert.deepEqual(ids, [modelId]);
  assert.equal((await client.models.retrieve(modelId)).id, modelId);
});

const messages = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'Tell me about the sea.' },
];

for (const sampling of [{ temperature: 0 }, { temperature: 0.8, seed: 1234 }]) {
  await check(`chat, plain and streamed, ${JSON.stringify(sampling)}`, async () => {
    const request = { model: modelId, messages, max_tokens: 24, ...sampling };
    const plain = await client.chat.completions.create(request);
    assert.equal(plain.object, 'chat.completion');
    assert.equal(plain.choices.length, 1);
    const answer = plain.choices[0].message;
    assert.equal(answer.role, 'assistant');
    assert.ok(answer.content.length > 0);
    assert.ok(['stop', 'length'].includes(plain.choices[0].finish_reason));
    checkUsage(plain.usage, 24);

    const streamed = await collect(
        await client.chat.completions.create(
            { ...request, stream: true, stream_options: { include_usage: true } }),
        (c) => c.delta.content);
    assert.equal(streamed.text, answer.content);
    assert.equal(streamed.finish, plain.choices[0].finish_reason);
    assert.ok(streamed.chunks > 2);
    assert.equal(streamed.usage.completion_tokens, plain.usage.completion_tokens);
    assert.equal(streamed.usage.prompt_tokens, plain.usage.prompt_tokens);
    // The same history again: all but the last prompt token come from the session.
    assert.equal(streamed.usage.prompt_tokens_details.cached_tokens,
                 plain.usage.prompt_tokens - 1);
  });
}

await check('a second turn reuses the first', async () => {
  const first = await client.chat.completions.create(
      { model: modelId, messages, max_tokens: 8, temperature: 0 });
  const history = [...messages, first.choices[0].message, { role: 'user', content: 'And?' }];
  const second = await client.chat.completions.create(
      { model: modelId, messages: history, max_tokens: 8, temperature: 0 });
  assert.ok(second.usage.prompt_tokens > first.usage.prompt_tokens);
  assert.ok(second.usage.prompt_tokens_details.cached_tokens >= first.usage.prompt_tokens - 1);
});

await check('tools: a call, its result, and prefix reuse across the turns', async () => {
  const tools = [{
    type: 'function',
    function: {
      name: 'get_weather', description: 'The weather in a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  }];
  const ask = [...messages.slice(0, 1), { role: 'user', content: 'Weather in Paris?' }];
  const request = { model: modelId, tools, tool_choice: 'auto', max_tokens: 8, temperature: 0 };
  const first = await client.chat.completions.create({ ...request, messages: ask });
  // The fixture model has random weights: it answers in text (a call would come as tool_calls).
  assert.ok(['stop', 'length', 'tool_calls'].includes(first.choices[0].finish_reason));
  const streamed = await collect(
      await client.chat.completions.create({ ...request, messages: ask, stream: true }),
      (c) => c.delta.content);
  assert.equal(streamed.text, first.choices[0].message.content ?? '');

  // The client ran the tool the assistant called: both go back in the history.
  const called = [...ask,
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function',
      function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: '{"sky": "clear", "celsius": 21}' }];
  const second = await client.chat.completions.create({ ...request, messages: called });
  assert.equal(second.object, 'chat.completion');
  assert.ok(second.usage.prompt_tokens > first.usage.prompt_tokens);
  // The tool definitions are in the system turn: the same tools reuse it and the question.
  assert.ok(second.usage.prompt_tokens_details.cached_tokens >= first.usage.prompt_tokens - 1);

  const third = await client.chat.completions.create({ ...request, messages:
      [...called, second.choices[0].message, { role: 'user', content: 'And tomorrow?' }] });
  assert.ok(third.usage.prompt_tokens_details.cached_tokens >= second.usage.prompt_tokens - 1);

  // tool_choice "none": no tools shown, so no calls; forcing a call is refused.
  const none = await client.chat.completions.create(
      { ...request, tool_choice: 'none', messages: called });
  assert.notEqual(none.choices[0].finish_reason, 'tool_calls');
  assert.ok(none.usage.prompt_tokens < second.usage.prompt_tokens);
  await assert.rejects(
      client.chat.completions.create({ ...request, tool_choice: 'required', messages: ask }),
      (e) => e instanceof OpenAI.BadRequestError && e.param === 'tool_choice' &&
             e.code === 'unsupported_value');
  await assert.rejects(
      client.chat.completions.create({ ...request, messages: [...ask,
        { role: 'assistant', tool_calls: [{ id: 'c', type: 'function',
          function: { name: 'get_weather', arguments: '{city}' } }] }] }),
      (e) => e instanceof OpenAI.BadRequestError &&
             e.param === 'messages[2].tool_calls[0].function.arguments');
});

await check('stop string', async () => {
  const request = { model: modelId, prompt: 'Once upon a time', max_tokens: 24, temperature: 0 };
  const full = (await client.completions.create(request)).choices[0].text;
  const stop = full.slice(Math.floor(full.length / 2), Math.floor(full.length / 2) + 3);
  assert.equal(stop.length, 3, `answer too short to cut: ${JSON.stringify(full)}`);
  const cut = await client.completions.create({ ...request, stop: ['never-seen', stop] });
  assert.equal(cut.choices[0].text, full.slice(0, full.indexOf(stop)));
  assert.equal(cut.choices[0].finish_reason, 'stop');
});

await check('completions, plain and streamed', async () => {
  const request = { model: modelId, prompt: 'The quick brown fox', max_tokens: 12, temperature: 0 };
  const plain = await client.completions.create(request);
  assert.equal(plain.object, 'text_completion');
  assert.ok(plain.choices[0].text.length > 0);
  checkUsage(plain.usage, 12);
  const streamed = await collect(await client.completions.create({ ...request, stream: true }),
                                 (c) => c.text);
  assert.equal(streamed.text, plain.choices[0].text);
  assert.equal(streamed.finish, plain.choices[0].finish_reason);
});

await check('errors', async () => {
  await assert.rejects(
      client.chat.completions.create({ model: 'gpt-4o', messages }),
      (e) => e instanceof OpenAI.NotFoundError && e.code === 'model_not_found');
  await assert.rejects(
      client.chat.completions.create({ model: modelId, messages, frobnicate: 1 }),
      (e) => e instanceof OpenAI.BadRequestError && e.param === 'frobnicate');
  await assert.rejects(
      client.chat.completions.create({ model: modelId, messages, temperature: 9 }),
      (e) => e instanceof OpenAI.BadRequestError && e.param === 'temperature');
  const stranger = new OpenAI({ baseURL, apiKey: 'wrong', maxRetries: 0 });
  await assert.rejects(stranger.models.list(),
                       (e) => e instanceof OpenAI.AuthenticationError && e.status === 401);
});

await check('SIGTERM stops the server cleanly', async () => {
  const code = await new Promise((resolve) => {
    server.removeAllListeners('exit');
    server.on('exit', (c) => resolve(c));
    server.kill('SIGTERM');
  });
  assert.equal(code, 0);
});
