'use strict';
// Crash repair on reload (spec/12, REPAIR-1 … REPAIR-4): what a new process does with the stored
// log before its agent takes any call.  It knows nothing but the log, so it scans it the way the
// real `interruptedTurnClosers` does, whatever point the old loop stood at (an await point or a hop).

const { Inbox } = require('./inbox');

// REPAIR-1: crash repair's text per code, fixed sentences of the real writer (wire values).
const REPAIR_TEXTS = {
  TOOL_OUTCOME_UNKNOWN:
    'The tool call was interrupted after it was recorded, but no result was durably recorded. Its outcome ' +
    'is unknown. Decide whether to retry from the tool semantics: retry only if the operation is read-only ' +
    'or idempotent; if it may have side effects, first verify external state or ask the user. Do not retry ' +
    'blindly.',
  TOOL_NOT_STARTED: 'The tool call was interrupted before the Harness recorded it as started. Retry it if it is still needed.',
};

// The open turn and step at the log's end, the calls nothing answered (call id -> the seq of its
// tool/call, or null when it never started), and the last turn number.
function scan(events) {
  let [openTurn, openStep, pending, lastTurn] = [null, null, new Map(), 0];
  for (const e of events) {
    if (e.type === 'turn/start') [openTurn, openStep, pending, lastTurn] = [e.data.turn, null, new Map(), e.data.turn];
    else if (e.type === 'turn/end') [openTurn, openStep, pending] = [null, null, new Map()];
    else if (e.type === 'step/start') [openStep, pending] = [e.data.step, new Map()];
    else if (e.type === 'step/end') [openStep, pending] = [null, new Map()];
    else if (e.type === 'assistant/message') {
      for (const b of e.data.message.content) if (b.type === 'tool-call') pending.set(b.id, null);
    } else if (e.type === 'tool/call') pending.set(e.data.callId, e.seq);
    else if (e.type === 'tool/result') pending.delete(e.data.message.source.callId);
  }
  return { openTurn, openStep, pending, lastTurn };
}

// Close an open turn, mark the seed, fold the inbox: `agent` is fresh, built on the stored events.
function load(agent) {
  const session = agent.session;
  const { openTurn, openStep, pending, lastTurn } = scan(session.events);
  agent.lastTurn = lastTurn; // REPAIR-4: numbering goes on from the last turn/start
  if (openTurn !== null) {
    const time = session.lastTime; // REPAIR-3
    // REPAIR-1: one synthetic error result per announced or started call nothing answered.
    for (const [callId, callSeq] of pending) {
      const started = callSeq !== null;
      const code = started ? 'TOOL_OUTCOME_UNKNOWN' : 'TOOL_NOT_STARTED';
      const error = { name: started ? 'ToolOutcomeUnknownError' : 'ToolNotStartedError', code };
      const message = {
        id: `interrupted-tool-result-${callId}-${session.nextSeq}`, role: 'user', source: { kind: 'tool', callId },
        content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text: REPAIR_TEXTS[code] }], isError: true }],
      };
      // The real closer cites the call's tool/call only when it has one (decisions H3).
      const envelope = started ? { surfaceOp: 'append', sourceEventSeqs: [callSeq] } : { surfaceOp: 'append' };
      session.appendAt('tool/result', { turn: openTurn, step: openStep, message, error }, time, envelope);
    }
    if (openStep !== null) session.appendAt('step/end', { turn: openTurn, step: openStep }, time);
    session.appendAt('turn/end', { turn: openTurn, reason: { kind: 'interrupted' } }, time);
  }
  const last = session.events[session.events.length - 1];
  if (!last || last.type !== 'session/end-seed') session.append('session/end-seed', {}); // REPAIR-2
  agent.inbox.lists = Inbox.fold(session.events); // FOLD-5
}

module.exports = { load };
