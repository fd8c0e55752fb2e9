// One conformance case against the real loop: the command language's commands mapped onto the
// real agent's public API, and what each command made the real loop commit and notify, through
// the model's view (view.mjs).
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DshContext, DshProcess, TOOL } from './process.mjs';
import { ModelView } from './view.mjs';
import { runChain } from './chain.mjs';
import { answerChunks } from './answers.mjs';
import { recordedCall } from './recording.mjs';

const FIRST_TIME = 1700000000000;
// The JSONL store's folder: in memory where the machine has one (the store fsyncs every batch).
export const SCRATCH = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();

// A real refusal's text names the rule the model refuses it by (spec/command-language.md).
const REFUSALS = [
  [/is already pending/, 'SPLICE-3'],
  [/non-JSON-serializable/, 'NORM-5'],
];

export class Unsupported extends Error {}

export class Refused extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

function refusalOf(error) {
  const text = error instanceof Error ? error.message : String(error);
  for (const [pattern, code] of REFUSALS) if (pattern.test(text)) return new Refused(code, text);
  return null;
}

// The time policy's clock (spec/adapter-protocol.md): every read ticks, so appends strictly grow.
// Installed once per adapter process; each case starts it over.
const clock = { now: FIRST_TIME, uuids: 0 };
Date.now = () => ++clock.now;
globalThis.crypto.randomUUID = () => `00000000-0000-4000-8000-${String(++clock.uuids).padStart(12, '0')}`;

const STOPPING = 'agent/turn-stopping';
// The hops inside a call rather than in the loop (spec/loop-grain.md row 22): a clear between its
// two lists, a cancel between its clear and its abort.  A call made at one runs whole.
const CALL_HOPS = ['clearing', 'canceling'];
// The hops a waking send made at such a point can stop at: its own (rows 1, 2; decisions G30).
const INNER_HOPS = ['waking', 'starting'];
// The loop's hops where the agent is idle: a waking send made there starts a driver and leaves them.
const IDLE_HOPS = ['waking', 'replaying'];
const PHASES = { decide: 'deciding', step: 'stepping', tool: 'stepping', stopping: 'stopping' };

export class RealCase {
  // `host` (a DshContext) serves the case's first process; without one, and for every process
  // after a restart, a process gets a fresh context of its own.  A host serves one case at a time:
  // the previous case's agents must be disposed (its `disposed` settled).
  static async start(label, recording = null, host = null) {
    host?.assertUnused();
    clock.now = FIRST_TIME;
    clock.uuids = 0;
    const realCase = new RealCase(label, host);
    realCase.recording = recording;
    await realCase.launch(false);
    return realCase;
  }

  constructor(label, host = null) {
    this.sessionId = `loopspec-${label}`;
    this.host = host;
    this.processes = []; // every process of the case, each with a store folder of its own
    this.view = new ModelView();
    this.entries = [];
    this.activity = 0;
    this.lastTurn = 0;
    this.step = null; // {turn, step} while a step is open
    this.reactions = []; // a recorder scenario's listeners of agent notifications (react)
    // Hop stops (spec/loop-grain.md; the command language's `stop` and `advance`).
    this.stop = null; // the hop the running command stops at: the first of that name the loop passes
    this.runningPhase = null; // the real agent's running phase, from its last running status (its latch)
    this.held = null; // the hop the loop is held at, innermost: {name, process, status}
    this.holder = null; // (hop) => serves requests there, the loop held (the adapter's); none: no stop
    this.wakingSends = []; // the waking sends made while idle that are running, innermost last
    this.clearCall = null; // the outermost clear or cancel that may stop inside itself (clearing, canceling)
    this.crash = null; // a crash at a hop: the log as it stood there, for the next process
    this.abandoned = false; // reset while held at a hop: the case ends once the loop let go
  }

  // A new process; `resume` loads the session from a copy of the last process's store, the disk
  // as that process left it (so a killed process can be torn down without touching it), or, after a
  // crash at a hop, from a store holding the log as it stood there (`durable`).
  async launch(resume, durable = null) {
    const owned = this.host === null || this.processes.length > 0;
    let context = this.host;
    if (owned) {
      const root = mkdtempSync(join(SCRATCH, 'loopspec-dsh-'));
      if (resume && durable !== null) await DshContext.writeStore(root, durable);
      else if (resume) this.process.copyStore(root);
      context = await DshContext.wire(root);
    }
    const process = new DshProcess({
      sessionId: this.sessionId,
      context,
      owned,
      sink: (entry) => { if (this.hears(process)) this.record(entry); },
      onPark: () => { if (this.hears(process)) this.parkedAt(); },
    });
    this.process = process;
    this.processes.push(process);
    await process.start({ resume });
  }

  // A `tool-calls` answer with no call announced runs its one (implicit) call to the end at once.
  parkedAt() {
    this.activity += 1;
    if (this.parked?.kind === 'decide') {
      const { turn, step, messages } = this.parked.payload;
      this.recording?.preStep('invoked', this.nextRawSeq, { turn, step, messageIds: messages.map((m) => m.id) });
      // A shutdown refuses the park: the listener throws there, and the recording says so.
      this.parked.refused = (error) => this.recording?.preStep('threw', this.nextRawSeq, { turn, step, error: `${error?.name ?? 'Error'}: ${error?.message}` });
    }
    if (this.parked?.kind === 'stopping') {
      const { turn } = this.parked.payload;
      this.recording?.listener(STOPPING, 'invoked', this.nextRawSeq, { turn });
      this.parked.refused = (error) => this.recording?.listener(STOPPING, 'threw', this.nextRawSeq, { turn, error: `${error?.name ?? 'Error'}: ${error?.message}` });
    }
    if (this.parked?.kind === 'tool' && this.pendingTool !== undefined) {
      const answer = this.pendingTool;
      this.pendingTool = undefined;
      this.process.resolvePark(answer);
    }
  }

  // What a process does reaches the case while it is the case's live one: a process killed at a hop
  // runs on once the hop lets go, and nothing of that is heard.
  hears(process) {
    return process === this.process && !process.killed;
  }

  // The current process's log length: the seq its next commit gets.
  get nextRawSeq() {
    return this.view.lastRawSeq + 1;
  }

  // What a recording says of the pending inbox and the log at this point.
  snapshot() {
    const ids = (list) => list.map((m) => m.id);
    return {
      nextTurn: ids(this.agent.inbox.nextTurn), nextStep: ids(this.agent.inbox.nextStep),
      status: this.agent.status, eventCount: this.nextRawSeq,
    };
  }

  record(entry) {
    this.activity += 1;
    this.recording?.raw(entry, this.nextRawSeq);
    if (entry.note) {
      this.entries.push({ live: this.view.note(entry.note) });
      this.notified(entry.note);
      this.passedNote(entry.note);
      return;
    }
    const event = this.view.admit(entry.event);
    if (entry.event.type === 'turn/end') this.passedEnd();
    if (entry.event.type === 'agent/inbox/spliced') this.passedSplice(entry.event.data);
    if (event === null) return;
    this.follow(event);
    this.entries.push({ durable: event });
  }

  // The hops that are notifications (spec/loop-grain.md rows 1, 2, 18): the loop is inside the
  // emit, which calls its listeners synchronously, so the hop is held right here.  `waking` is the
  // insertion of a waking send's own message made while the agent is idle (the driver not started).
  //
  // `replaying` (row 21) is the idle status of a driver that latched a wake: the real `kick` read
  // the latch from its running phase (one object, from the running status on, which a chaining
  // turn re-arms in place) before it went idle, and replays it after this emit if input is pending.
  passedNote(note) {
    if (note.type === 'agent/status' && note.status === 'running') {
      this.runningPhase = this.agent.phase;
      this.reach('starting');
      this.watchTurnStart();
    } else if (note.type === 'agent/status' && note.status === 'idle') {
      if (this.runningPhase?.wakeRequested === true) this.reach('replaying');
    } else if (note.type === 'agent/error') this.reach('failing');
    else if (note.type === 'agent/inbox/inserted') {
      const waking = this.wakingSends.at(-1);
      if (waking === undefined || waking.passed || note.message?.id !== waking.id) return;
      waking.passed = true;
      this.reach('waking');
    } else if (note.type === 'agent/inbox/discarded') this.passedDiscard();
  }

  // The hops inside a clear (row 22: `inbox.clear`, and `cancel`'s clear).  The real clear splices
  // next-step, emits a discard per message (its listeners run inside the emit), and only then reads
  // next-turn, splices it and emits its discards; a cancel then reads its phase again, disarms the
  // latch and aborts.  So `clearing` is held inside the listener of next-step's last discard, and a
  // cancel's `canceling` inside the listener of next-turn's last discard (a cancel whose next-turn
  // is empty by then passes `clearing` only).  Only for the outermost clear or cancel command that
  // stops at one of them: the discards and splices of the calls made while it is held there are
  // not its own, and they run whole.
  //
  // A follow-up made at such a point while the agent was idle starts a driver, which claims and
  // awaits its system prompt before that follow-up returns (row 4).  When the outer call has
  // returned, that driver is still there, a microtask from going on: the hop `prompting`, held
  // right after the call returns, before anything the call queued runs.  A driver a cancel aborted
  // at its start (at the send's own `starting`, G30) threw before `turn/start` and goes idle a
  // microtask after the return: the hop `ending`.
  clearInside(c) {
    const call = { cancel: c.op === 'cancel', stepLeft: this.agent.inbox.nextStep.length, turnLeft: null, holding: false };
    const { process } = this;
    const idle = this.agent.status === 'idle';
    const lastTurn = this.lastTurn;
    this.clearCall = call;
    let value;
    try {
      value = this.act(c);
    } finally {
      if (this.clearCall === call) this.clearCall = null;
    }
    if (idle && this.process === process && this.agent.status === 'running') {
      this.reach(this.lastTurn !== lastTurn ? 'prompting' : 'ending');
    }
    return value;
  }

  // Next-turn's count is known only when the clear reaches it: its splice (outcome canceled) comes
  // right after next-step's last discard, or first when next-step was empty.
  passedSplice(data) {
    const call = this.clearCall;
    if (call === null || call.holding || call.stepLeft > 0 || call.turnLeft !== null) return;
    if (data.target === 'next-turn' && data.outcome === 'canceled') call.turnLeft = data.removedCount ?? 0;
  }

  passedDiscard() {
    const call = this.clearCall;
    if (call === null || call.holding) return;
    if (call.stepLeft > 0) {
      call.stepLeft -= 1;
      // A cancel whose next-turn is empty once next-step is discarded aborts right after: it passes
      // only `clearing` (the model's `cancel-ends`).
      if (call.stepLeft === 0) this.reachInCall(call, 'clearing');
    } else if (call.turnLeft !== null && call.turnLeft > 0) {
      call.turnLeft -= 1;
      if (call.turnLeft === 0 && call.cancel) this.reachInCall(call, 'canceling');
    }
  }

  reachInCall(call, name) {
    call.holding = true;
    try {
      this.reach(name);
    } finally {
      call.holding = false;
    }
  }

  // After `turn/end` (rows 19, 20) the turn returns to `kick` synchronously, and kick goes on a
  // microtask later.  A session/event observer cannot call (it would reenter the append), so the hop
  // is a microtask queued in the append: it runs after that return and before kick's continuation.
  // The turn chains when it armed a fresh abort controller for the next turn.  Queued only when the
  // running command stops at one of the two, so no other timing sees an extra microtask.
  passedEnd() {
    if (this.stop !== 'chaining' && this.stop !== 'ending') return;
    const { agent } = this;
    if (agent.phase.kind !== 'running') return; // crash repair's closers: no driver
    const { abort } = agent.phase;
    queueMicrotask(() => {
      const chains = agent.phase.kind === 'running' && agent.phase.abort !== abort;
      this.reach(chains ? 'chaining' : 'ending');
      if (chains) this.watchTurnStart();
    });
  }

  // A turn about to start (after `starting`, or `chaining`) checks its signal first thing: aborted
  // there (a cancel at either hop), it throws before `turn/start`, and kick goes on a microtask later,
  // which is the hop `ending` too (no `turn/end` leads there).
  watchTurnStart() {
    if (this.stop === 'ending') this.afterCheck(this.agent.phase.abort.signal, (passed) => (passed ? null : 'ending'));
  }

  // The loop passes the hop `name`.  The running command stops at the first one its `stop` names:
  // the holder answers it and serves the next requests right here, inside the loop's own segment,
  // so nothing of the loop runs until the holder lets go (an advance, a call that left the hop, a
  // crash, a reset).  A call made there that itself stops at a hop is held inside, nested.
  reach(name) {
    if (this.stop !== name || this.holder === null || this.process.killed || this.abandoned) return;
    this.stop = null;
    const outer = this.held;
    // Inside a call: at one of its points, or at a hop of a send made at one (held nested in it).
    const inCall = outer !== null && (CALL_HOPS.includes(outer.name) || outer.inCall);
    this.held = { name, process: this.process, status: this.agent.status, inCall };
    try {
      this.holder(name);
    } finally {
      this.held = outer;
    }
  }

  // Whether the loop has left the hop it is held at: a waking send made there started the driver
  // (at `waking` or `replaying`, the loop hops where the agent is idle), the process was killed there, or the
  // case was reset.  Any other call leaves the loop where it is; so does every call at `clearing`
  // and `canceling`, which are inside a call: a follow-up at an idle clear's starts the driver and
  // the status changes, yet the loop is still inside the clear's discarded listener.
  get hopLeft() {
    const { held } = this;
    return held === null || held.process !== this.process || held.process.killed || this.abandoned
      || (IDLE_HOPS.includes(held.name) && this.agent.status !== held.status);
  }

  // A reset while held at a hop: the case ends once the loop has let go.
  abandon() {
    this.abandoned = true;
    this.stop = null;
  }

  // A command starts: what the loop writes and emits from now on is its observation, and it stops
  // at the first hop named by its `stop` (none when null or absent).  A call made at a hop inside a
  // call (`clearing`, `canceling`) runs whole but for a waking send's own hops, where it is held
  // in turn (decisions G30); a call made where such a send is held runs whole.  An `advance` runs
  // the interrupted call's rest, which may stop at `canceling`, or the held send's, which stops
  // only at the send's own hops.
  begin(command) {
    this.entries = [];
    const { held } = this;
    const stop = command.stop ?? null;
    if (held === null || !(CALL_HOPS.includes(held.name) || held.inCall)) this.stop = stop;
    else if (command.op === 'advance') this.stop = held.inCall && !INNER_HOPS.includes(stop) ? null : stop;
    else this.stop = !held.inCall && command.op === 'send' && INNER_HOPS.includes(stop) ? stop : null;
  }

  // What the loop committed and notified since the command began, through the view.
  observation(value) {
    return {
      ok: true,
      events: this.entries.filter((e) => e.durable).map((e) => e.durable),
      notifications: this.entries.filter((e) => e.live).map((e) => e.live),
      value: value === undefined ? null : value,
    };
  }

  // `advance` anywhere but at a hop: the loop has nothing to go on from by itself.
  cannotAdvance() {
    return new Refused('INPUT-4', `the loop goes on by itself only from a hop, not while the agent is ${this.state().phase}`);
  }

  // A listener of an agent notification (a recorder scenario's `react` step) acts once, on the
  // first notification it matches, synchronously inside the real emit: its calls are recorded
  // `within` the notification's type, right after the notification's record.  A refused call ends
  // the listener, whose throw the real emit contains (it only logs it), so it is caught here.
  react({ on, when, actions }) {
    this.reactions.push({ on, when, actions });
  }

  notified(note) {
    const matches = (r) => r.on === note.type && Object.entries(r.when).every(([key, value]) => (
      key === 'messageId' ? note.message?.id === value : note[key] === value));
    const index = this.reactions.findIndex(matches);
    if (index < 0) return;
    const [reaction] = this.reactions.splice(index, 1);
    try {
      this.actions(reaction.actions, note.type);
    } catch (error) {
      if (!(error instanceof Error)) throw error;
    }
  }

  // What the harness must know of the loop's position to map later commands.
  follow(event) {
    const d = event.data;
    if (event.type === 'turn/start') this.lastTurn = d.turn;
    else if (event.type === 'step/start') this.step = { turn: d.turn, step: d.step };
    else if (event.type === 'step/end' || event.type === 'turn/end') {
      this.step = null;
      this.pendingTool = undefined;
    }
  }

  get agent() {
    return this.process.agent;
  }

  get parked() {
    return this.process.parked;
  }

  // The loop runs until nothing moves for a few turns of the event loop: it then waits on a park,
  // or it is idle.
  async settle() {
    let quiet = 0;
    let seen = this.activity;
    while (quiet < 3) {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.activity === seen) quiet += 1;
      else { quiet = 0; seen = this.activity; }
    }
  }

  // How long the case lets the loop run after a command before the next one lands: `settled` (until
  // it parks or goes idle), `tick` (one timer tick: every queued microtask has run) or `now` with a
  // number of microtask hops, so the next call lands inside the loop's own promise chains, at
  // whichever await or notification the loop has reached after that many hops.
  async after(timing) {
    if (timing === undefined || timing.after === 'settled') return this.settle();
    if (timing.after === 'tick') return new Promise((resolve) => setTimeout(resolve, 0));
    for (let hop = 0; hop < timing.hops; hop += 1) await null;
    return undefined;
  }

  async observe(command, timing = undefined) {
    this.begin(command);
    let value;
    const call = this.recording ? recordedCall(command) : null;
    const before = this.nextRawSeq;
    if (call) this.recording.begin(call, before);
    try {
      // A call returns synchronously: its op-end is written before any microtask the call queued
      // runs (a reentrant cancel's aborted driver goes idle one microtask later, agent/status).
      value = call ? this.act(command) : await this.perform(command);
    } catch (error) {
      if (call) this.recording.end(call, before, this.nextRawSeq, { threw: error });
      if (error instanceof Refused) return { ok: false, code: error.code, message: error.message };
      throw error;
    }
    if (call) this.recording.end(call, before, this.nextRawSeq, { result: value });
    await this.after(timing);
    return this.observation(value);
  }

  // A public call on the real agent; a refusal the model names becomes Refused.
  call(operation) {
    try {
      return operation();
    } catch (error) {
      throw refusalOf(error) ?? error;
    }
  }

  // The public calls a command or a listener's action makes.
  act(c) {
    const a = this.agent;
    switch (c.op) {
      case 'append': return this.call(() => a.inbox.append(c.target, c.message)), null;
      case 'prepend': return this.call(() => a.inbox.prepend(c.target, c.message)), null;
      case 'splice': return this.call(() => a.inbox.splice(c.target, c.start, c.deleteCount, c.inserted));
      case 'replace': return this.call(() => a.inbox.replace(c.id, c.message));
      case 'remove': return this.call(() => a.inbox.remove(c.id));
      case 'clear': return this.call(() => a.inbox.clear()), null;
      case 'send': return this.send(c), null;
      case 'cancel': return this.call(() => a.cancel(c.cause, { keepInbox: c.keepInbox })), null;
      default: throw new Error(`not a public call: ${c.op}`);
    }
  }

  // A waking send made while the agent is idle passes the hop `waking` inside the notification of
  // its own message's insertion, before it starts the driver (row 1).
  send(c) {
    const waking = c.wake && this.agent.status === 'idle' ? { id: c.message.id, passed: false } : null;
    if (waking !== null) this.wakingSends.push(waking);
    try {
      return this.call(() => this.agent.send(c.message, c.target, c.wake));
    } finally {
      if (waking !== null) this.wakingSends.pop();
    }
  }

  // Actions inside a listener: a refusal is the listener throwing the refusal's text.  A recording
  // writes each as a call made `within` the listener's hook.
  actions(list, within) {
    for (const action of list) {
      const call = this.recording ? recordedCall(action) : null;
      const before = this.nextRawSeq;
      if (call) this.recording.begin(call, before, within);
      try {
        const value = this.act(action);
        if (call) this.recording.end(call, before, this.nextRawSeq, { result: value }, within);
      } catch (error) {
        if (call) this.recording.end(call, before, this.nextRawSeq, { threw: error }, within);
        throw error instanceof Refused ? new Error(error.message) : error;
      }
    }
  }

  async perform(c) {
    return c.op === 'restart' ? this.restart() : this.performNow(c);
  }

  // Every command but a restart runs synchronously up to the loop's first await (or hop), so it can
  // also be served where the loop is held at a hop.
  performNow(c) {
    switch (c.op) {
      case 'decide': return this.decide(c);
      case 'step-result': return this.stepResult(c);
      case 'turn-stopping': return this.turnStopping(c);
      default: return this.stopsInside(c) ? this.clearInside(c) : this.act(c);
    }
  }

  // A clear or a cancel that clears, as a command (not a listener's action) that stops at a hop
  // inside itself, and not made inside another such call.
  stopsInside(c) {
    const clears = c.op === 'clear' || (c.op === 'cancel' && !c.keepInbox);
    return clears && this.clearCall === null && CALL_HOPS.includes(this.stop);
  }

  // An answer where the loop is held at a hop: the loop is between its await points, so no answer
  // has a transition there.
  answerRefusal(c) {
    return new Refused('INPUT-4', `input '${c.op}' has no transition while the agent is ${this.held.name}`);
  }

  expect(kinds, input) {
    if (this.held !== null) throw this.answerRefusal({ op: input });
    const parked = this.parked;
    if (parked === null || !kinds.includes(parked.kind)) {
      const phase = parked === null ? 'idle' : PHASES[parked.kind];
      throw new Refused('INPUT-4', `input '${input}' has no transition while the agent is ${phase}`);
    }
    return parked;
  }

  aborted() {
    return this.parked?.signal?.aborted === true || this.parked?.payload?.signal?.aborted === true;
  }

  decide(c) {
    const parked = this.expect(['decide'], 'decide');
    // An aborted turn ignores the answer: the parked listener hands on to the default at once.
    if (this.aborted()) return this.process.resolvePark(this.decided(parked.next(), parked.payload));
    const chain = runChain(c.listeners, parked.payload, parked.next, (list) => this.actions(list, 'agent/pre-step'));
    return this.process.resolvePark(this.decided(chain, parked.payload));
  }

  // The waterfall's outcome, as a recording's pre-step record says it.  This is the hop `decided`
  // (row 6): the outermost listener's result has settled, and preStep has not checked its signal.
  decided(chain, { turn, step, signal }) {
    if (!this.recording && this.holder === null) return chain;
    return chain.then((decision) => {
      if (this.recording) {
        const said = decision.kind === 'reject' ? { kind: 'reject' } : { kind: 'enter', messageIds: decision.messages.map((m) => m.id) };
        this.recording.preStep('decided', this.nextRawSeq, { turn, step, decision: said });
      }
      this.reach('decided');
      if (this.stop === 'decision-returned') this.afterCheck(signal, (passed) => (passed ? 'decision-returned' : null));
      return decision;
    }, (error) => {
      this.recording?.preStep('threw', this.nextRawSeq, { turn, step, error: `${error?.name ?? 'Error'}: ${error?.message}` });
      this.reach('decided');
      throw error;
    });
  }

  // Hops a microtask behind one of the loop's abort checks: `decision-returned` (row 6: preStep's
  // check once the waterfall has settled passed, and preStep returns the decision to turn, which acts
  // on it a microtask later) and `ending` (a turn's first check threw).  The turn's signal gets a
  // one-shot check of its own, around the platform's check (which runs unchanged): `hop(passed)`
  // names the hop, queued during the check, so before the return or throw that follows it queues
  // the loop's continuation; it runs in between.
  afterCheck(signal, hop) {
    signal.throwIfAborted = () => {
      delete signal.throwIfAborted;
      const name = hop(!signal.aborted);
      if (name !== null) queueMicrotask(() => this.reach(name));
      AbortSignal.prototype.throwIfAborted.call(signal);
    };
  }

  turnStopping(c) {
    const parked = this.expect(['stopping'], 'turn-stopping');
    const { turn } = parked.payload;
    if (!this.aborted()) {
      try {
        this.actions(c.actions, STOPPING);
        if (c.raises !== null) throw new Error(c.raises);
      } catch (error) {
        this.recording?.listener(STOPPING, 'threw', this.nextRawSeq, { turn, error: `${error?.name ?? 'Error'}: ${error?.message}` });
        return this.process.rejectPark(error);
      }
    }
    this.recording?.listener(STOPPING, 'returned', this.nextRawSeq, { turn });
    return this.process.resolvePark(undefined);
  }

  stepResult(c) {
    const parked = this.expect(['step', 'tool'], 'step-result');
    const step = this.step;
    if (parked.kind === 'tool') return this.toolAnswer(c, parked);
    const aborted = this.aborted();
    if (!aborted && (c.kind === 'tool-start' || c.kind === 'tool-result')) return null; // no call pending: nothing
    if (!aborted && c.kind === 'tool-call' && !c.started) {
      throw new Unsupported('the real tool scheduler writes tool/call as soon as the model\'s answer ends: a call announced but not started cannot be held');
    }
    const callId = `call-${step.turn}.${step.step}.1`;
    if (c.kind === 'tool-calls' && !aborted) {
      this.view.implicitCalls.add(callId);
      this.pendingTool = { context: c.context, conclude: c.conclude };
    }
    this.process.retryNext = c.kind === 'request-error' && c.retry;
    return this.process.resolvePark(answerChunks(c, callId, TOOL));
  }

  // A call of the model's answer is running: the tool is parked.
  toolAnswer(c, parked) {
    const aborted = parked.signal?.aborted === true;
    // The only call has started, so `tool-start` starts nothing; in an aborted step it is one more
    // answer that closes the step (CANCEL-5: any answer but the drain of a started call).
    if (c.kind === 'tool-start' && !aborted) return null;
    if (c.kind === 'tool-call') throw new Unsupported('the real model answers once per step: a call cannot be announced while the answer\'s calls run');
    if (!aborted && (c.kind === 'stop' || c.kind === 'max-tokens')) {
      throw new Unsupported('the model\'s answer already ended with a tool call: it cannot end again as a text answer');
    }
    if (!aborted && c.kind === 'tool-result') {
      throw new Unsupported('the real loop closes the step when its answer\'s last call returns: a tool result cannot leave the step open');
    }
    if (!aborted && (c.kind === 'fail' || c.kind === 'request-error')) {
      throw new Unsupported('a failure of the step while its tool runs has no public way in: a tool\'s own error becomes its result');
    }
    // CANCEL-5: a drained tool's deferred context is still accepted after the abort (decisions G28).
    const answer = c.kind === 'tool-calls' ? { context: c.context, conclude: !aborted && c.conclude } : { context: [], conclude: false };
    return this.process.resolvePark(answer);
  }

  // A crash at the hop the loop is held at (a `restart` served there): the log as it stands now is
  // all that survives (the adapter's crashes leave no torn tail), taken synchronously, before the
  // loop moves again.  The killed process runs on once the hop lets go, unheard, writing only into
  // its own store; `restart` then starts the next process on a store written from this log.
  crashAtHop() {
    this.process.killed = true;
    this.stop = null;
    this.crash = { meta: structuredClone(this.agent.session.header), events: structuredClone(this.agent.session.events) };
  }

  // A crash: the log as persisted is all that survives; a new process loads it and repairs it.
  async restart() {
    const crash = this.crash;
    this.crash = null;
    if (crash === null) {
      await this.settle();
      await this.process.flush();
    }
    const before = this.view.lastRawSeq;
    const lastKept = this.view.kept.at(-1);
    // The killed process answers nothing more; close() tears it down with its await point.
    // A host resumes a persisted session and creates one that never reached the disk.
    const start = this.entries.length;
    this.recording?.boundary(true, this.snapshot());
    await this.nextProcess(before >= 0, crash);
    // Repair's closers carry the time of the real log's last event (REPAIR-3), which the view may
    // have dropped; in the view they carry the last kept event's time (view rule repair-time).
    for (const entry of this.entries.slice(start)) {
      if (entry.durable && entry.durable.type !== 'session/end-seed' && lastKept !== undefined) entry.durable.time = lastKept.time;
    }
    this.recording?.resumed(this.snapshot());
    return null;
  }

  // An orderly shutdown (recordings only; the command language has none): the root context is
  // disposed, as a host does on exit, and what that writes is the ending process's; then the next
  // process loads the log.
  // With `returns`, a waiting pre-step listener returns once the disposal has begun (the lifecycle's
  // teardown waits for the loop to go idle, so it hears the listener out): its `decided` follows
  // the note.  Without, the teardown refuses the park and the listener throws.
  async shutdown({ returns = false, now = false } = {}) {
    if (!now) await this.settle();
    this.recording?.boundary(false, this.snapshot());
    const parked = this.parked;
    const disposed = this.process.dispose();
    if (returns && parked?.kind === 'decide' && this.parked === parked) {
      this.process.resolvePark(this.decided(parked.next(), parked.payload));
    }
    await disposed;
    await this.settle();
    await this.nextProcess(true);
    this.recording?.resumed(this.snapshot());
  }

  // The next process starts (loading the store when `resume`); what it wrote while loading (repair's
  // closers, the end-seed) enters the view, and no recording marks it: nothing recorded then.
  async nextProcess(resume, durable = null) {
    if (this.recording) this.recording.paused = true;
    await this.launch(resume, durable);
    for (const event of this.agent.session.events) if (event.seq > this.view.lastRawSeq) this.record({ event });
    if (this.recording) this.recording.paused = false;
  }

  state() {
    const parked = this.parked;
    return {
      inbox: { 'next-turn': [...this.agent.inbox.nextTurn], 'next-step': [...this.agent.inbox.nextStep] },
      phase: this.held?.name ?? (parked === null ? 'idle' : PHASES[parked.kind]),
      status: this.agent.status,
      lastTurn: this.lastTurn,
    };
  }

  // Tear the case down: every process disposed (a killed one writes only into its own folder;
  // `disposed` settles then, and a host is free for its next case), then their stores removed; the
  // promise settles when that is done.
  close() {
    const processes = this.processes;
    this.disposed = Promise.allSettled(processes.map((p) => p.dispose()));
    return this.disposed.then(() => Promise.all(processes.map((p) => p.removeStore())));
  }
}
