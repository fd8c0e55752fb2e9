'use strict';
// The agent: its durable inbox and log, the public calls, and the driver that runs its turns
// (spec/07 … spec/12, real-behaviour §6, §8).
//
// The loop itself is the generator in driver.js; this class holds it and resumes it.  The agent's
// phase is the point the driver last yielded: an await point ('deciding', 'stepping', 'stopping'),
// where only the environment's answer moves it on, or a hop, where it stands only because a
// command asked to stop there (`stop`) and from which `advance` lets it go on.  With no driver the
// phase is 'idle'.  Public calls (sends, edits, cancel) can land at any of these points; they
// change the inbox or the driver's signal and latch, never the driver's position, except a waking
// send at `waking`, which starts the driver itself.
//
// Two more hops lie inside a public call rather than in the loop (loop-grain row 22, decisions
// G23): `clearing`, where a clear (or a cancel's clear) has discarded next-step and not yet read
// next-turn, and `canceling`, where a cancel's clear is done and its abort is not.  A clear and a
// cancel are generators too, yielding these points; one that stops at a point is held in `call`,
// and the state reports the point as its phase (`reportedPhase`) while `phase` stays the loop's
// own: the phase the call came in, which a call landing at the point may change.  A waking send
// made at such a point may stop at its own `waking` or `starting` (decisions G30): it is held there
// (`held`), and `advance` runs its rest, up to its return, before the outer call's.

const { Session } = require('./session');
const { Inbox, Refused, NEXT_TURN, NEXT_STEP } = require('./inbox');
const {
  drive, AWAITS, HOPS, DECIDING, STEPPING, STOPPING, ENDING, STARTING, WAKING, REPLAYING, PROMPT_ABORTED,
} = require('./driver');
const { load } = require('./repair');

const IDLE = 'idle';
const IDLE_PHASES = [IDLE, WAKING, REPLAYING]; // no driver runs: the status is idle
const CLEARING = 'clearing';
const CANCELING = 'canceling';
// A driver a call started at such a point awaits its system prompt once that call has returned: a
// hop of the loop's (row 4) that the driver's generator does not yield (it stands at 'deciding').
const PROMPTING = 'prompting';
// The hops a send made at a point inside a call can stop at: its own (loop-grain rows 1, 2).
const INNER_HOPS = [WAKING, STARTING];

// Run a call (a generator of its points) on until it ends (false) or reaches the point named
// `stop` (true, suspended there).  Not a for-of: leaving one early would close the generator,
// and a call stopped at a point has its rest still to run.
function reaches(call, stop) {
  for (let next = call.next(); !next.done; next = call.next()) if (next.value === stop) return true;
  return false;
}

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
    this.driver = null; // the running driver (driver.js), from a waking send until idle
    this.run = null; // the driver's state: its abort signal and latch, and its open turn
    this.lastTurn = 0;
    this.call = null; // a clear or cancel stopped at a point inside it, its rest still to run
    this.point = null; // that point's name ('clearing', 'canceling')
    this.held = null; // the hop where a waking send made at that point stopped, its rest still to run
  }

  // The state's phase: the hop of a send held inside a call, the point inside a call where one
  // stopped, else the loop's phase.
  get reportedPhase() {
    return this.held ?? this.point ?? this.phase;
  }

  // STATUS-1: at `waking` the send's message is in but the driver has not started yet.  At a point
  // inside a call it is the status of the phase the call came in (as the calls landing there left
  // it), which is what `phase` holds.
  get status() {
    return IDLE_PHASES.includes(this.phase) ? 'idle' : 'running';
  }

  emitStatus(status) {
    this.observe({ live: { type: 'agent/status', status } });
  }

  // Resume the driver (with the environment's answer at an await point) and run it until it rests:
  // at its next await point, at the first hop named `stop`, or idle when it returns.
  go(answer, stop) {
    let next = this.driver.next(answer);
    while (!next.done) {
      this.phase = next.value;
      if (AWAITS.includes(next.value) || next.value === stop) return;
      next = this.driver.next(); // a hop the command passes: the loop goes on by itself
    }
    this.driver = null;
    this.phase = IDLE;
  }

  // ---- public calls (INPUT-1 … INPUT-3, CANCEL-1 … CANCEL-4) ----

  send(message, target, wake, stop = null) {
    // A call made at a point inside another runs whole (G23) but for a waking send's own hops (G30);
    // one made where such a send is held runs whole.
    const inCall = this.point !== null;
    if (inCall && (this.held !== null || !INNER_HOPS.includes(stop))) stop = null;
    const run = this.run;
    // CANCEL-4: decided before the insertion; only a waking send is redirected.
    const wakingAfterAbort = wake && run !== null && run.aborted;
    this.inbox.splice(wakingAfterAbort ? NEXT_TURN : target, Infinity, 0, [message]); // INPUT-3: may throw
    if (!wake) return;
    const starts = this.point !== null && IDLE_PHASES.includes(this.phase); // from inside a call
    if (this.phase === IDLE || this.phase === REPLAYING) {
      // INPUT-2: the driver is created now and stops first at `waking`.  At `replaying` the last
      // driver is done with: its replay would find this one running and do nothing.
      this.driver = drive(this);
      this.go(undefined, stop);
      if (inCall && stop !== null && this.phase === stop) this.held = stop;
    } else if (this.phase === WAKING) {
      // The first send's driver has not started: this send starts it (G20), once its own inserted
      // listeners have run, the agent still idle: a `waking` point of its own, where it may stop.
      if (stop !== WAKING) this.go(undefined, stop);
      if (inCall && stop !== null && this.phase === stop) this.held = stop;
    } else if (wakingAfterAbort && !isDisposed(run.abort)) {
      run.wakeRequested = true;
    }
    if (starts && this.phase === DECIDING && this.run !== null) {
      // Loop-grain row 4: a send made at a point inside a call returns as soon as the turn it started
      // wrote turn/start, claimed and began awaiting its system prompt; its pre-step listeners are
      // called only once the outer call's rest has run (`resume`, decisions G23).
      this.run.prompting = true;
    }
    // A waking send made where another is held started the driver itself: that hold is over.
    if (this.held !== null && this.phase !== this.held) this.held = null;
  }

  clear(stop = null) {
    this.enter(this.clearing(), stop);
  }

  // SPLICE-8: a clear that discarded next-step stops at `clearing` before it reads next-turn;
  // next-turn's discards are its last act, with no point after them.
  *clearing() {
    for (const target of this.inbox.clearing()) if (target === NEXT_STEP) yield CLEARING;
  }

  cancel(cause, keepInbox, stop = null) {
    this.enter(this.canceling(cause, keepInbox), stop);
  }

  // CANCEL-1: clear first (next-step, then next-turn), then disarm the latch and abort.  The points:
  // `clearing` after next-step's discards, `canceling` after next-turn's.  The driver to abort is
  // read only at the end, as the real cancel reads its phase again: a call at a point may have
  // started one (a follow-up from idle), and this cancel aborts it.
  *canceling(cause, keepInbox) {
    if (!keepInbox) {
      for (const target of this.inbox.clearing()) yield target === NEXT_STEP ? CLEARING : CANCELING;
    }
    const run = this.run;
    if (run === null) return; // idle (or waking): nothing to abort (CANCEL-2)
    if (!keepInbox) run.wakeRequested = false; // CANCEL-4: a clearing cancel disarms a latched wake
    if (!run.aborted) Object.assign(run, { aborted: true, abort: cause }); // the first cause wins
  }

  // Run a public call that has points inside it: through, or to the point named `stop`.  A call
  // made while another stands at a point runs whole, whatever its `stop` (the command language: it
  // passes no hop of its own); the point then holds the phase that call left.
  enter(call, stop) {
    if (this.point !== null) stop = null;
    if (reaches(call, stop)) Object.assign(this, { call, point: stop });
  }

  // ---- the environment's answers at the await points, and `advance` from a hop ----

  // A point inside a call is no await point either.
  expect(phase, input) {
    if (this.point !== null || this.phase !== phase) {
      throw new Refused('INPUT-4', `'${input}' is not expected while ${this.reportedPhase}`);
    }
  }

  decide(listeners, perform, stop = null) {
    this.expect(DECIDING, 'decide');
    this.go({ listeners, perform }, stop);
  }

  stepResult(result, stop = null) {
    this.expect(STEPPING, 'step-result');
    this.go(result, stop);
  }

  turnStopping(actions, raises, perform, stop = null) {
    this.expect(STOPPING, 'turn-stopping');
    this.go({ actions, raises, perform }, stop);
  }

  advance(stop = null) {
    if (this.held !== null) {
      this.heldGoesOn(stop);
      return;
    }
    if (this.call !== null) {
      // At a point inside a call: the call's rest runs (to a later point named `stop`), and the
      // move rests in the phase the call came in, even at a loop hop (decisions G23).
      if (reaches(this.call, stop)) this.point = stop;
      else {
        Object.assign(this, { call: null, point: null });
        this.resume(stop);
      }
      return;
    }
    if (this.phase === PROMPTING) {
      this.phase = DECIDING;
      this.promptReturned(stop);
      return;
    }
    if (!HOPS.includes(this.phase)) {
      throw new Refused('INPUT-4', `the loop goes on by itself only from a hop, not while the agent is ${this.phase}`);
    }
    this.go(undefined, stop);
  }

  // The rest of a send held at one of its hops inside a call (G30): hop by hop, to the later hop
  // `stop`, or until the send returns: its turn awaiting the system prompt ('prompting' once the
  // outer call is done), or, aborted at its start, the driver at 'ending', a microtask from idle.
  heldGoesOn(stop) {
    let next = this.driver.next();
    for (; !next.done; next = this.driver.next()) {
      this.phase = next.value;
      if (!INNER_HOPS.includes(next.value)) break;
      if (next.value === stop) {
        this.held = stop;
        return;
      }
    }
    if (next.done) Object.assign(this, { driver: null, phase: IDLE });
    this.held = null;
    if ((this.phase === DECIDING || this.phase === ENDING) && this.run !== null) this.run.prompting = true;
  }

  // The outer call is done and the agent is back in the loop's phase.  A driver a call made at its
  // point started awaits its system prompt (loop-grain row 4, decisions G23): the hop 'prompting',
  // where the move rests if `stop` names it, else it goes on at once.  One a cancel aborted at its
  // start goes idle from 'ending' likewise (G30).
  resume(stop) {
    const run = this.run;
    if (run !== null && run.prompting && this.phase === ENDING) {
      run.prompting = false;
      if (stop !== ENDING) this.go(undefined, stop);
      return;
    }
    if (run === null || !run.prompting || this.phase !== DECIDING) return;
    if (stop === PROMPTING) this.phase = PROMPTING;
    else this.promptReturned(stop);
  }

  // The system prompt is there: aborted by then (the outer cancel's end, or a cancel made at a
  // point), the turn ends aborted before any pre-step listener is called (CANCEL-3) and the loop
  // goes on as after any aborted end (to `stop` if it names 'ending'); otherwise the listeners are
  // due and the agent rests at 'deciding', awaiting `decide` as usual.
  promptReturned(stop) {
    this.run.prompting = false;
    if (this.run.aborted) this.go(PROMPT_ABORTED, stop);
  }
}

// A crash and a reload (REPAIR-1 … REPAIR-4): the new agent knows only the old one's log, so
// whatever point the old driver stood at, the new one starts idle with no driver (and a call
// stopped inside itself ends with the old process: decisions G23).
function restarted(agent) {
  const fresh = new Agent(agent.session.events, agent.observe);
  load(fresh);
  return fresh;
}

module.exports = { Agent, restarted };
