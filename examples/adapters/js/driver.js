'use strict';
// The driver: what the loop does on its own, from a waking send to idle, as one generator.
//
// The real driver is an async function.  Control leaves it at its await points, where it waits for
// the environment, and at its hops (spec/loop-grain.md), where one of its own async functions
// awaits another for a few microtasks and a queued call can still land.  This generator yields the
// name of each such point.  At an await point ('deciding', 'stepping', 'stopping') `yield` returns
// the environment's answer; at a hop it returns nothing: the loop simply goes on.  What a call that
// landed at a hop did (a send, an edit, a cancel) is read from the agent afterwards, exactly where
// the real loop checks its abort signal or reads its inbox, so nothing here knows about such calls.
// Between two yields everything runs in one go, as the real driver runs from one await to the next.

const { NEXT_TURN, NEXT_STEP } = require('./inbox');
const { runWaterfall, ListenerThrew } = require('./prestep');
const { openStep, takeResult, OPEN, CLOSED } = require('./step');

const DECIDING = 'deciding';
const STEPPING = 'stepping';
const STOPPING = 'stopping';
const AWAITS = [DECIDING, STEPPING, STOPPING];
// The loop's hops.  `clearing` and `canceling` lie inside a clear or a cancel instead (loop-grain
// row 22), which agent.js runs as generators of their own.
const HOPS = ['decided', 'decision-returned', 'failing', 'chaining', 'ending', 'starting', 'waking', 'replaying'];
const [DECIDED, DECISION_RETURNED, FAILING, CHAINING, ENDING, STARTING, WAKING, REPLAYING] = HOPS;

// How a turn ends: its turn/end reason, and whether that is a normal exit (the loop's `break`),
// the only kind of end after which the next turn chains (CHAIN-1).
const end = (reason, normal = false) => ({ reason, normal });
const aborted = (run) => end({ kind: 'aborted', reason: run.abort }); // CANCEL-3

// What the agent sends in at 'deciding' instead of an answer when the turn, still awaiting its system
// prompt (loop-grain row 4), is aborted by the time it goes on: no pre-step listener is called
// (CANCEL-3, decisions G23; agent.js `resume`).
const PROMPT_ABORTED = Symbol('prompt-aborted');

function* drive(agent) {
  yield WAKING; // INPUT-2: the send's message is written and notified; the agent is still idle (G20)
  for (;;) {
    // The driver starts: a running phase with its abort signal, and no turn yet (G19).
    agent.run = { aborted: false, abort: null, wakeRequested: false };
    agent.emitStatus('running'); // STATUS-1
    yield STARTING;
    if (!agent.run.aborted) yield* turns(agent); // a cancel landing at `starting` starts no turn
    yield ENDING; // after the last turn/end, still running (G17)
    agent.emitStatus('idle');
    const latched = agent.run.wakeRequested;
    agent.run = null;
    if (!latched) return;
    // CANCEL-4: the agent is idle and its status's listeners act (a waking send there starts a
    // driver of its own, agent.js); then the latched wake starts a new driver if input is pending.
    yield REPLAYING;
    if (!agent.inbox.hasPending) return;
  }
}

// Turns, one after another while each ends normally with input pending (CHAIN-1, CHAIN-2).
function* turns(agent) {
  for (;;) {
    const { reason, normal } = yield* turn(agent);
    agent.session.append('turn/end', { turn: agent.run.turn, reason });
    if (!normal || !agent.inbox.hasPending) return;
    // The next turn gets a fresh abort signal (and no latch) before the hop, so only a cancel
    // landing at `chaining` stops it, before its turn/start.
    Object.assign(agent.run, { aborted: false, abort: null, wakeRequested: false });
    yield CHAINING;
    if (agent.run.aborted) return;
  }
}

// One turn, from its turn/start to the end its turn/end will carry.
function* turn(agent) {
  const turnNumber = agent.lastTurn + 1; // TURN-1: numbered over the session
  agent.session.append('turn/start', { turn: turnNumber });
  agent.lastTurn = turnNumber;
  // The turn runs only under a signal not aborted, which has no latch (one is set only after an abort).
  // `prompting`: the turn claimed and awaits its system prompt, its pre-step listeners not called
  // yet, because a call made at a point inside another call started it and returned there
  // (loop-grain row 4, decisions G23); it goes on only when the outer call's rest has run.
  agent.run = { turn: turnNumber, step: 0, stepOpen: false, aborted: false, abort: null, wakeRequested: false,
    turnEnds: null, batch: [], calls: [], announced: 0, prompting: false };
  claim(agent, NEXT_TURN); // TURN-4: no await between turn/start and the first claim
  for (;;) {
    const answer = yield DECIDING;
    // CANCEL-3: aborted before the prompt's wait ended: no listener called, no hop passed (G23).
    if (answer === PROMPT_ABORTED) return aborted(agent.run);
    const ended = yield* decision(agent, answer);
    if (ended) return ended;
    const after = yield* step(agent);
    if (after) return after;
  }
}

function claim(agent, target) {
  agent.run.batch = agent.inbox.claim(target, agent.run.turn); // CLAIM-1, CLAIM-6
}

// The pre-step's answer, then the two hops before the turn acts on it (decisions G17): an end, or
// null when a step opened.
function* decision(agent, answer) {
  const run = agent.run;
  const held = preStep(run, answer);
  yield DECIDED; // the waterfall settled; the pre-step has not checked for an abort yet
  if (run.aborted) return aborted(run);
  if ('raised' in held) return yield* failing(agent, held.raised, 'UNKNOWN'); // DECIDE-7
  yield DECISION_RETURNED; // the pre-step returned; the turn has not acted on the decision yet
  const { decision: decided } = held;
  // A reject or an empty entry ends the turn without another abort check (loop-grain row 6).
  if (decided.kind === 'reject') return end({ kind: 'blocked' }); // DECIDE-5
  if (decided.messages.length === 0) {
    if (run.turnEnds) return end({ kind: run.turnEnds }, true); // DECIDE-6, a later boundary
    if (run.step === 0) return end({ kind: 'completed' }); // DECIDE-6, the first boundary
  }
  if (run.aborted) return aborted(run); // checked right before step/start
  openStep(agent, decided.messages);
  return null;
}

// The waterfall over the claimed batch: {decision}, {raised} (a listener threw, or one of its
// actions was refused), or {} when the turn is already aborted and no listener runs (CANCEL-3).
function preStep(run, { listeners, perform }) {
  if (run.aborted) return {};
  try {
    return { decision: runWaterfall(run.batch, listeners, perform, { turn: run.turn, step: run.step + 1 }) };
  } catch (err) {
    if (!(err instanceof ListenerThrew)) throw err;
    return { raised: err.message };
  }
}

// An open step until it closes, then turn-stopping or the next boundary: an end, or null when the
// turn goes on to its next decision.
function* step(agent) {
  for (;;) {
    const out = takeResult(agent, yield STEPPING);
    if (out === OPEN) continue;
    if (out === CLOSED) break;
    if (out.end) return end(out.end);
    return yield* failing(agent, out.fail.message, out.fail.code);
  }
  if (agent.run.turnEnds && agent.inbox.nextStep.length === 0) { // RESULT-4
    const ended = yield* stopping(agent, yield STOPPING);
    if (ended) return ended;
  }
  claim(agent, NEXT_STEP); // CLAIM-6: no hop between a step's end and the next claim
  return null;
}

// agent/turn-stopping's answer: an end, or null when steered or injected input extends the turn.
function* stopping(agent, { actions, raises, perform }) {
  const run = agent.run;
  if (run.aborted) return aborted(run); // an aborted turn runs no turn-stopping listener
  let raised = null;
  for (const action of actions) {
    try {
      perform(action);
    } catch (err) {
      if (err.rule === undefined) throw err;
      raised = err.message; // a refused action is the listener throwing there
      break;
    }
  }
  if (raised === null && raises !== null && raises !== undefined) raised = raises;
  if (run.aborted) return aborted(run);
  if (raised !== null) return yield* failing(agent, raised, 'UNKNOWN');
  if (agent.inbox.nextStep.length === 0) return end({ kind: run.turnEnds }, true); // RESULT-5
  return null; // RESULT-4
}

// END-2: agent/error for the last opened step, whose listeners act at once; then the hop
// `failing`; then the error end, whatever a call landing there did (END-3, decisions G18).
function* failing(agent, message, code) {
  const error = { message, code };
  agent.observe({ live: { type: 'agent/error', turn: agent.run.turn, step: agent.run.step, error } });
  yield FAILING;
  return end({ kind: 'error', error });
}

module.exports = {
  drive, AWAITS, HOPS, DECIDING, STEPPING, STOPPING, ENDING, STARTING, WAKING, REPLAYING, PROMPT_ABORTED,
};
