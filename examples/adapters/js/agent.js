'use strict';
// The agent loop as a synchronous state machine (spec/07 … spec/12, real-behaviour §6, §8).
//
// The real loop is async; its await points are where this machine rests, waiting for the
// environment's answer: 'deciding' (the pre-step waterfall), 'stepping' (the model call and tools),
// 'stopping' (agent/turn-stopping).  Everything between two await points runs inside one call,
// exactly as the real driver runs synchronously up to its next await.

const { Session } = require('./session');
const { Inbox, Refused, NEXT_TURN, NEXT_STEP, SPLICED } = require('./inbox');
const { runWaterfall, ListenerThrew } = require('./prestep');

const IDLE = 'idle';
const DECIDING = 'deciding';
const STEPPING = 'stepping';
const STOPPING = 'stopping';

// REPAIR-1: crash repair's text per code, fixed sentences of the real writer (wire values).
const REPAIR_TEXTS = {
  TOOL_OUTCOME_UNKNOWN:
    'The tool call was interrupted after it was recorded, but no result was durably recorded. Its outcome ' +
    'is unknown. Decide whether to retry from the tool semantics: retry only if the operation is read-only ' +
    'or idempotent; if it may have side effects, first verify external state or ask the user. Do not retry ' +
    'blindly.',
  TOOL_NOT_STARTED: 'The tool call was interrupted before the Harness recorded it as started. Retry it if it is still needed.',
};

// CANCEL-4: a disposed agent never replays a latched wake.
function isDisposed(cause) {
  return cause !== null && typeof cause === 'object' && cause.kind === 'disposed';
}

class Agent {
  // `events`: a stored log to load (a restart); `observe(entry)` sees every durable event
  // ({durable: event}) and live notification ({live: notification}) in emission order.
  constructor(events = [], observe = () => {}) {
    this.observe = observe;
    this.session = new Session(events);
    this.session.onAppend = (event) => this.observe({ durable: event });
    this.inbox = new Inbox(this.session, (n) => this.observe({ live: n }));
    this.phase = IDLE;
    this.run = null; // the running turn's private state
    this.lastTurn = 0;
  }

  get status() {
    return this.phase === IDLE ? 'idle' : 'running';
  }

  setPhase(phase) {
    const before = this.status;
    this.phase = phase;
    if (this.status !== before) this.observe({ live: { type: 'agent/status', status: this.status } }); // STATUS-1
  }

  // ---- input (INPUT-1 … INPUT-3, CANCEL-1 … CANCEL-4) ----

  send(message, target, wake) {
    const run = this.run;
    // CANCEL-4: decided before the insertion; only a waking send is redirected.
    const wakingAfterAbort = wake && run !== null && run.aborted;
    this.inbox.splice(wakingAfterAbort ? NEXT_TURN : target, Infinity, 0, [message]); // INPUT-3: may throw
    if (!wake) return;
    if (this.phase === IDLE) {
      this.wake();
    } else if (wakingAfterAbort && !isDisposed(run.abort)) {
      run.wakeRequested = true;
    }
  }

  cancel(cause, keepInbox) {
    if (!keepInbox) {
      this.inbox.clear();
      if (this.run) this.run.wakeRequested = false;
    }
    if (this.run && !this.run.aborted) Object.assign(this.run, { aborted: true, abort: cause }); // first cause wins
  }

  // ---- the driver ----

  wake() {
    this.setPhase(DECIDING); // INPUT-2: status first, then turn/start and the claim, same call
    this.startTurn();
  }

  startTurn() {
    const turn = this.lastTurn + 1; // TURN-1
    this.session.append('turn/start', { turn });
    this.lastTurn = turn;
    this.run = { turn, step: 0, stepOpen: false, aborted: false, abort: null, wakeRequested: false, turnEnds: null, batch: [], calls: [], announced: 0 };
    this.boundary(NEXT_TURN); // TURN-4
  }

  boundary(target) {
    this.run.batch = this.inbox.claim(target, this.run.turn); // CLAIM-1, CLAIM-6
    this.phase = DECIDING;
  }

  expect(phase, input) {
    if (this.phase !== phase) throw new Refused('INPUT-4', `'${input}' is not expected while ${this.phase}`);
  }

  decide(listeners, perform) {
    this.expect(DECIDING, 'decide');
    const run = this.run;
    if (run.aborted) return this.endTurn({ kind: 'aborted', reason: run.abort }); // CANCEL-3
    let decision;
    try {
      decision = runWaterfall(run.batch, listeners, perform, { turn: run.turn, step: run.step + 1 });
    } catch (err) {
      if (!(err instanceof ListenerThrew)) throw err;
      if (run.aborted) return this.endTurn({ kind: 'aborted', reason: run.abort });
      return this.fail(err.message, 'UNKNOWN'); // DECIDE-7
    }
    if (run.aborted) return this.endTurn({ kind: 'aborted', reason: run.abort });
    if (decision.kind === 'reject') return this.endTurn({ kind: 'blocked' }); // DECIDE-5
    if (decision.messages.length === 0) {
      if (run.turnEnds) return this.endTurn({ kind: run.turnEnds }, true); // DECIDE-6, later boundary
      if (run.step === 0) return this.endTurn({ kind: 'completed' }); // DECIDE-6, first boundary
    }
    run.step += 1;
    run.stepOpen = true;
    run.batch = [];
    this.session.append('step/start', { turn: run.turn, step: run.step }); // DECIDE-8
    for (const m of decision.messages) this.session.append('user/message', m, { surfaceOp: 'append' });
    this.phase = STEPPING;
    return undefined;
  }

  stepResult(result) {
    this.expect(STEPPING, 'step-result');
    const run = this.run;
    if (run.aborted) {
      // CANCEL-5: no tool starts after the abort; a started one that finished while another started
      // one still runs is answered and the step stays open; any other answer (the last started
      // tool's included, finding F9) drains the started calls and skips the others.
      const [first, second] = run.calls;
      if (result.kind === 'tool-result' && first?.started && second?.started) return this.answerCalls(1);
      this.answerCalls(run.calls.filter((c) => c.started).length);
      this.skipCalls();
      this.closeStep();
      return this.endTurn({ kind: 'aborted', reason: run.abort }); // CANCEL-3
    }
    if (result.kind === 'request-error' && result.retry) return undefined; // RESULT-3: same step
    if (result.kind === 'tool-call') return this.callTool(result.started); // a point inside the step
    if (result.kind === 'tool-start') return this.startCall(); // an announced call's tool starts
    if (result.kind === 'tool-result') return this.answerCalls(1); // one tool finished, the step goes on
    if (result.kind === 'fail' || result.kind === 'request-error') {
      this.closeStep();
      return this.fail(result.error, result.code);
    }
    let stepEnd = null;
    if (result.kind === 'stop') stepEnd = 'completed';
    if (result.kind === 'max-tokens') stepEnd = 'max-tokens';
    if (result.kind === 'tool-calls') {
      // RESULT-2: each tool's result is committed before its context is spliced into next-step.
      this.answerCalls();
      for (const m of result.context || []) {
        try {
          this.inbox.splice(NEXT_STEP, Infinity, 0, [m]); // RESULT-2: a public insertion at the end
        } catch (err) {
          if (err.rule === undefined) throw err;
          this.closeStep();
          return this.fail(err.message, 'UNKNOWN');
        }
      }
      if (result.conclude) stepEnd = 'completed';
    }
    run.turnEnds = run.turnEnds === 'max-tokens' ? 'max-tokens' : stepEnd; // RESULT-1: sticky
    this.answerCalls();
    this.closeStep();
    if (run.turnEnds && this.inbox.nextStep.length === 0) {
      this.phase = STOPPING; // RESULT-4
      return undefined;
    }
    return this.boundary(NEXT_STEP);
  }

  turnStopping(actions, raises, perform) {
    this.expect(STOPPING, 'turn-stopping');
    const run = this.run;
    if (run.aborted) return this.endTurn({ kind: 'aborted', reason: run.abort });
    let raised = null;
    for (const action of actions) {
      try {
        perform(action);
      } catch (err) {
        if (err.rule === undefined) throw err;
        raised = err.message;
        break;
      }
    }
    if (raised === null && raises !== null && raises !== undefined) raised = raises;
    if (run.aborted) return this.endTurn({ kind: 'aborted', reason: run.abort });
    if (raised !== null) return this.fail(raised, 'UNKNOWN');
    if (this.inbox.nextStep.length === 0) return this.endTurn({ kind: run.turnEnds }, true); // RESULT-5
    return this.boundary(NEXT_STEP); // RESULT-4: steered or injected input extends the turn
  }

  // The model's answer announced a tool call (assistant/message); with `started` its tool began.
  callTool(started) {
    const run = this.run;
    run.announced += 1; // numbered over the whole step, answered or not
    const id = `call-${run.turn}.${run.step}.${run.announced}`;
    const block = { type: 'tool-call', id, name: 'tool', arguments: '{}' };
    const message = { id: `assistant-${id}`, role: 'assistant', content: [block], source: { kind: 'model' } };
    this.session.append('assistant/message', { turn: run.turn, step: run.step, message }, { surfaceOp: 'append' });
    run.calls.push({ id, started: false });
    if (started) this.startCall(); // LOG-11: the oldest call not started yet, this one if none is older
    return undefined;
  }

  // The oldest announced call whose tool had not started starts.
  startCall() {
    const run = this.run;
    const waiting = run.calls.find((c) => !c.started);
    if (waiting === undefined) return undefined;
    waiting.seq = this.session.append('tool/call', { turn: run.turn, step: run.step, callId: waiting.id, name: 'tool', arguments: '{}' }).seq;
    waiting.started = true;
    return undefined;
  }

  // Tools finished (the oldest `count` pending calls; all by default): start any call that had not,
  // then answer each (LOG-4).
  answerCalls(count = Infinity) {
    const run = this.run;
    const done = run.calls.slice(0, count);
    for (const { id, started, seq } of done) {
      const callSeq = started ? seq : this.session.append('tool/call', { turn: run.turn, step: run.step, callId: id, name: 'tool', arguments: '{}' }).seq;
      // CANCEL-5: after the abort a started tool's answer is the tool runtime's aborted result.
      const text = run.aborted ? 'Error: tool call aborted' : 'done';
      const content = [{ type: 'tool-result', toolCallId: id, content: [{ type: 'text', text }], isError: run.aborted }];
      const message = { id: `tool-result-${id}`, role: 'user', source: { kind: 'tool', callId: id }, content };
      const data = { turn: run.turn, step: run.step, message };
      if (run.aborted) data.error = { name: 'AbortError', code: 'ABORTED' };
      // Every tool/result cites its call's tool/call (decisions H3).
      this.session.append('tool/result', data, { surfaceOp: 'append', sourceEventSeqs: [callSeq] });
    }
    run.calls = run.calls.slice(done.length);
    return undefined;
  }

  // CANCEL-5: each announced call that never started gets its tool/call and an error tool/result.
  skipCalls() {
    const run = this.run;
    for (const { id } of run.calls) {
      const callSeq = this.session.append('tool/call', { turn: run.turn, step: run.step, callId: id, name: 'tool', arguments: '{}' }).seq;
      const text = 'Error: tool call aborted before dispatch';
      const content = [{ type: 'tool-result', toolCallId: id, content: [{ type: 'text', text }], isError: true }];
      const message = { id: `tool-result-${id}`, role: 'user', source: { kind: 'tool', callId: id }, content };
      const error = { name: 'AbortError', code: 'ABORTED_BEFORE_DISPATCH' };
      const data = { turn: run.turn, step: run.step, message, error };
      this.session.append('tool/result', data, { surfaceOp: 'append', sourceEventSeqs: [callSeq] });
    }
    run.calls = [];
  }

  closeStep() {
    const run = this.run;
    this.session.append('step/end', { turn: run.turn, step: run.step }); // STEP-2
    run.stepOpen = false;
    run.calls = [];
    run.announced = 0;
  }

  fail(message, code) {
    const error = { message, code };
    // END-2: the live agent/error (last opened step) precedes the durable error end.
    this.observe({ live: { type: 'agent/error', turn: this.run.turn, step: this.run.step, error } });
    return this.endTurn({ kind: 'error', error });
  }

  // turn/end, then: chain (CHAIN-1), replay a latched wake (CANCEL-4) or park (CHAIN-2).
  endTurn(reason, normalExit = false) {
    const run = this.run;
    this.session.append('turn/end', { turn: run.turn, reason });
    if (normalExit && this.inbox.hasPending) return this.startTurn();
    this.run = null;
    this.setPhase(IDLE);
    if (run.wakeRequested && this.inbox.hasPending) this.wake();
    return undefined;
  }

  // ---- restart (REPAIR-1 … REPAIR-4) ----

  // A new process loading the stored log: close an open turn, mark the seed, fold the inbox.
  load() {
    const events = this.session.events;
    let openTurn = null;
    let openStep = null;
    let pending = new Map(); // call id -> the seq of its tool/call, or null while it has not started
    for (const e of events) {
      if (e.type === 'turn/start') [openTurn, openStep, pending] = [e.data.turn, null, new Map()];
      else if (e.type === 'turn/end') [openTurn, openStep, pending] = [null, null, new Map()];
      else if (e.type === 'step/start') [openStep, pending] = [e.data.step, new Map()];
      else if (e.type === 'step/end') [openStep, pending] = [null, new Map()];
      else if (e.type === 'assistant/message') {
        for (const b of e.data.message.content) if (b.type === 'tool-call') pending.set(b.id, null);
      } else if (e.type === 'tool/call') pending.set(e.data.callId, e.seq);
      else if (e.type === 'tool/result') pending.delete(e.data.message.source.callId);
      if (e.type === 'turn/start') this.lastTurn = e.data.turn;
    }
    if (openTurn !== null) {
      const time = this.session.lastTime; // REPAIR-3
      // REPAIR-1: one synthetic error result per announced or started call nothing answered.
      for (const [callId, callSeq] of pending) {
        const started = callSeq !== null;
        const code = started ? 'TOOL_OUTCOME_UNKNOWN' : 'TOOL_NOT_STARTED';
        const error = { name: started ? 'ToolOutcomeUnknownError' : 'ToolNotStartedError', code };
        const seq = this.session.nextSeq;
        const text = REPAIR_TEXTS[code];
        const message = {
          id: `interrupted-tool-result-${callId}-${seq}`, role: 'user', source: { kind: 'tool', callId },
          content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text }], isError: true }],
        };
        // The real closer cites the call's tool/call only when it has one (decisions H3).
        const envelope = started ? { surfaceOp: 'append', sourceEventSeqs: [callSeq] } : { surfaceOp: 'append' };
        this.session.appendAt('tool/result', { turn: openTurn, step: openStep, message, error }, time, envelope);
      }
      if (openStep !== null) this.session.appendAt('step/end', { turn: openTurn, step: openStep }, time);
      this.session.appendAt('turn/end', { turn: openTurn, reason: { kind: 'interrupted' } }, time);
    }
    const last = events[events.length - 1];
    if (!last || last.type !== 'session/end-seed') this.session.append('session/end-seed', {}); // REPAIR-2
    const lists = Inbox.fold(this.session.events); // FOLD-5
    this.inbox.lists = lists;
  }
}

// A crash and a reload: the new agent knows only the old one's log.
function restarted(agent) {
  const fresh = new Agent(agent.session.events, agent.observe);
  fresh.load();
  return fresh;
}

module.exports = { Agent, restarted, IDLE, DECIDING, STEPPING, STOPPING, SPLICED };
