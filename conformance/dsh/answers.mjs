// What the scripted model streams for each `step-result` kind: the real provider protocol's
// chunks (dsh-llm StreamChunk), ending with the finish reason the kind names.

function text(index, body) {
  return [
    { type: 'block-start', index, blockType: 'text' },
    { type: 'text-delta', index, text: body },
    { type: 'block-end', index, block: { type: 'text', text: body } },
  ];
}

function toolCall(index, id, name) {
  return [
    { type: 'block-start', index, blockType: 'tool-call' },
    { type: 'tool-call-delta', index, id, name, argumentsDelta: '{}' },
    { type: 'block-end', index, block: { type: 'tool-call', id, name, arguments: '{}' } },
  ];
}

const finish = (reason) => ({ type: 'finish', reason });
const failure = (c) => ({ message: c.error, code: c.code });

// kind -> the chunks of the answer (callId: the id the step's one call gets).
const ANSWERS = {
  stop: () => [...text(0, 'done'), finish({ kind: 'stop' })],
  'max-tokens': () => [...text(0, 'done'), finish({ kind: 'max-tokens' })],
  'tool-calls': (_c, callId, tool) => [...toolCall(0, callId, tool), finish({ kind: 'tool-calls' })],
  'tool-call': (_c, callId, tool) => [...toolCall(0, callId, tool), finish({ kind: 'tool-calls' })],
  'tool-start': () => [...text(0, 'done'), finish({ kind: 'stop' })],
  'tool-result': () => [...text(0, 'done'), finish({ kind: 'stop' })],
  'request-error': (c) => [finish({ kind: 'error', failure: failure(c) })],
  fail: (c) => [finish({ kind: 'error', failure: failure(c) })],
};

export function answerChunks(c, callId, tool) {
  return { chunks: ANSWERS[c.kind](c, callId, tool) };
}
