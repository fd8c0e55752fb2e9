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

const { Session } = require('./session');
const { Inbox, Refused, NEXT_TURN } = require('./inbox');
const { drive, AWAITS, HOPS, DECIDING, STEPPING, STOPPING, WAKING } = require('./driver');
const { load } = require('./repair');

const IDLE = 'idle';

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
  }

  // STATUS-1: at `waking` the send's message is in but the driver has not started yet.
  get status() {
    return this.phase === IDLE || this.phase === WAKING ? 'idle' : 'running';
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
    const run = this.run;
    // CANCEL-4: decided before the insertion; only a waking send is redirected.
    const wakingAfterAbort = wake && run !== null && run.aborted;
    this.inbox.splice(wakingAfterAbort ? NEXT_TURN : target, Infinity, 0, [message]); // INPUT-3: may throw
    if (!wake) return;
    if (this.phase === IDLE) {
      this.driver = drive(this); // INPUT-2: the driver is created now and stops first at `waking`
      this.go(undefined, stop);
    } else if (this.phase === WAKING) {
      // The first send's driver has not started: this send starts it (G20), once its own inserted
      // listeners have run, the agent still idle: a `waking` point of its own, where it may stop.
      if (stop !== WAKING) this.go(undefined, stop);
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

  // ---- the environment's answers at the await points, and `advance` from a hop ----

  expect(phase, input) {
    if (this.phase !== phase) throw new Refused('INPUT-4', `'${input}' is not expected while ${this.phase}`);
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
    if (!HOPS.includes(this.phase)) {
      throw new Refused('INPUT-4', `the loop goes on by itself only from a hop, not while the agent is ${this.phase}`);
    }
    this.go(undefined, stop);
  }
}

// A crash and a reload (REPAIR-1 … REPAIR-4): the new agent knows only the old one's log, so
// whatever point the old driver stood at, the new one starts idle with no driver.
function restarted(agent) {
  const fresh = new Agent(agent.session.events, agent.observe);
  load(fresh);
  return fresh;
}

module.exports = { Agent, restarted };
