'use strict';
// One step of a turn: its opening, the environment's answers while it is open (the model call and
// its tools), and its closing (spec/09, spec/10 CANCEL-5, real-behaviour §6).
//
// `takeResult` applies one `step-result` answer and says what the driver does next.  It never
// waits: the driver (driver.js) owns the awaits and the hops around the step.

const { NEXT_STEP } = require('./inbox');

// What a step-result leaves the driver with (besides {end} and {fail}, see takeResult).
const OPEN = 'open'; // the step stays open: the driver waits for the next answer
const CLOSED = 'closed'; // the step ended normally: turn-stopping or the next boundary follows

// DECIDE-8: the decided messages enter the step, one user/message each, right after step/start.
function openStep(agent, messages) {
  const run = agent.run;
  run.step += 1;
  run.stepOpen = true;
  run.batch = [];
  agent.session.append('step/start', { turn: run.turn, step: run.step });
  for (const m of messages) agent.session.append('user/message', m, { surfaceOp: 'append' });
}

// Returns OPEN, CLOSED, {end: reason} (the aborted turn ended) or {fail: {message, code}} (the
// step failed and is closed; agent/error and the error end are the driver's).
function takeResult(agent, result) {
  const run = agent.run;
  if (run.aborted) {
    // CANCEL-5: no tool starts after the abort; a started one that finished while another started
    // one still runs is answered and the step stays open; any other answer (the last started
    // tool's included, finding F9) drains the started calls and skips the others.
    const [first, second] = run.calls;
    if (result.kind === 'tool-result' && first?.started && second?.started) return answerCalls(agent, 1), OPEN;
    const drained = run.calls.filter((c) => c.started).length;
    answerCalls(agent, drained);
    // A drained tool's deferred context still goes into next-step (decisions G28).
    for (const m of result.kind === 'tool-calls' && drained > 0 ? result.context || [] : []) {
      try {
        agent.inbox.splice(NEXT_STEP, Infinity, 0, [m]);
      } catch (err) {
        if (err.rule === undefined) throw err;
        break; // the turn ends aborted all the same
      }
    }
    skipCalls(agent);
    closeStep(agent);
    return { end: { kind: 'aborted', reason: run.abort } }; // CANCEL-3
  }
  if (result.kind === 'request-error' && result.retry) return OPEN; // RESULT-3: same step
  if (result.kind === 'tool-call') return callTool(agent, result.started), OPEN; // a point inside the step
  if (result.kind === 'tool-start') return startCall(agent), OPEN; // an announced call's tool starts
  if (result.kind === 'tool-result') return answerCalls(agent, 1), OPEN; // one tool finished
  if (result.kind === 'fail' || result.kind === 'request-error') {
    closeStep(agent);
    return { fail: { message: result.error, code: result.code } };
  }
  let stepEnd = null;
  if (result.kind === 'stop') stepEnd = 'completed';
  if (result.kind === 'max-tokens') stepEnd = 'max-tokens';
  if (result.kind === 'tool-calls') {
    // RESULT-2: each tool's result is committed before its context is spliced into next-step.
    answerCalls(agent);
    for (const m of result.context || []) {
      try {
        agent.inbox.splice(NEXT_STEP, Infinity, 0, [m]); // RESULT-2: a public insertion at the end
      } catch (err) {
        if (err.rule === undefined) throw err;
        closeStep(agent); // the messages before it stay written: a durable append is not undone
        return { fail: { message: err.message, code: 'UNKNOWN' } };
      }
    }
    if (result.conclude) stepEnd = 'completed';
  }
  run.turnEnds = run.turnEnds === 'max-tokens' ? 'max-tokens' : stepEnd; // RESULT-1: sticky
  answerCalls(agent);
  closeStep(agent);
  return CLOSED;
}

function toolCall(run, id) {
  return { turn: run.turn, step: run.step, callId: id, name: 'tool', arguments: '{}' };
}

// The model's answer announced a tool call (assistant/message); with `started` its tool began.
function callTool(agent, started) {
  const run = agent.run;
  run.announced += 1; // numbered over the whole step, answered or not
  const id = `call-${run.turn}.${run.step}.${run.announced}`;
  const block = { type: 'tool-call', id, name: 'tool', arguments: '{}' };
  const message = { id: `assistant-${id}`, role: 'assistant', content: [block], source: { kind: 'model' } };
  agent.session.append('assistant/message', { turn: run.turn, step: run.step, message }, { surfaceOp: 'append' });
  run.calls.push({ id, started: false });
  if (started) startCall(agent); // LOG-11: the oldest call not started yet, this one if none is older
}

// The oldest announced call whose tool had not started starts.
function startCall(agent) {
  const run = agent.run;
  const waiting = run.calls.find((c) => !c.started);
  if (waiting === undefined) return;
  waiting.seq = agent.session.append('tool/call', toolCall(run, waiting.id)).seq;
  waiting.started = true;
}

function toolResult(run, id, text, isError) {
  const content = [{ type: 'tool-result', toolCallId: id, content: [{ type: 'text', text }], isError }];
  const message = { id: `tool-result-${id}`, role: 'user', source: { kind: 'tool', callId: id }, content };
  return { turn: run.turn, step: run.step, message };
}

// Tools finished (the oldest `count` pending calls; all by default): start any call that had not,
// then answer each (LOG-4).  Every tool/result cites its call's tool/call (decisions H3).
function answerCalls(agent, count = Infinity) {
  const run = agent.run;
  const done = run.calls.slice(0, count);
  for (const { id, started, seq } of done) {
    const callSeq = started ? seq : agent.session.append('tool/call', toolCall(run, id)).seq;
    // CANCEL-5: after the abort a started tool's answer is the tool runtime's aborted result.
    const data = toolResult(run, id, run.aborted ? 'Error: tool call aborted' : 'done', run.aborted);
    if (run.aborted) data.error = { name: 'AbortError', code: 'ABORTED' };
    agent.session.append('tool/result', data, { surfaceOp: 'append', sourceEventSeqs: [callSeq] });
  }
  run.calls = run.calls.slice(done.length);
}

// CANCEL-5: each announced call that never started gets its tool/call and an error tool/result.
function skipCalls(agent) {
  const run = agent.run;
  for (const { id } of run.calls) {
    const callSeq = agent.session.append('tool/call', toolCall(run, id)).seq;
    const data = toolResult(run, id, 'Error: tool call aborted before dispatch', true);
    data.error = { name: 'AbortError', code: 'ABORTED_BEFORE_DISPATCH' };
    agent.session.append('tool/result', data, { surfaceOp: 'append', sourceEventSeqs: [callSeq] });
  }
  run.calls = [];
}

function closeStep(agent) {
  const run = agent.run;
  agent.session.append('step/end', { turn: run.turn, step: run.step }); // STEP-2
  run.stepOpen = false;
  run.calls = [];
  run.announced = 0;
}

module.exports = { openStep, takeResult, OPEN, CLOSED };
