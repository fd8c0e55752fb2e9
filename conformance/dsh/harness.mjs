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
  }

  // A new process; `resume` loads the session from a copy of the last process's store, the disk
  // as that process left it (so a killed process can be torn down without touching it).
  async launch(resume) {
    const owned = this.host === null || this.processes.length > 0;
    let context = this.host;
    if (owned) {
      const root = mkdtempSync(join(SCRATCH, 'loopspec-dsh-'));
      if (resume) this.process.copyStore(root);
      context = await DshContext.wire(root);
    }
    const process = new DshProcess({
      sessionId: this.sessionId,
      context,
      owned,
      sink: (entry) => { if (process === this.process) this.record(entry); },
      onPark: () => this.parkedAt(),
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
      return;
    }
    const event = this.view.admit(entry.event);
    if (event === null) return;
    this.follow(event);
    this.entries.push({ durable: event });
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
    this.entries = [];
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
    return {
      ok: true,
      events: this.entries.filter((e) => e.durable).map((e) => e.durable),
      notifications: this.entries.filter((e) => e.live).map((e) => e.live),
      value: value === undefined ? null : value,
    };
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
      case 'send': return this.call(() => a.send(c.message, c.target, c.wake)), null;
      case 'cancel': return this.call(() => a.cancel(c.cause, { keepInbox: c.keepInbox })), null;
      default: throw new Error(`not a public call: ${c.op}`);
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
    switch (c.op) {
      case 'decide': return this.decide(c);
      case 'step-result': return this.stepResult(c);
      case 'turn-stopping': return this.turnStopping(c);
      case 'restart': return this.restart();
      default: return this.act(c);
    }
  }

  expect(kinds, input) {
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

  // The waterfall's outcome, as a recording's pre-step record says it.
  decided(chain, { turn, step }) {
    if (!this.recording) return chain;
    return chain.then((decision) => {
      const said = decision.kind === 'reject' ? { kind: 'reject' } : { kind: 'enter', messageIds: decision.messages.map((m) => m.id) };
      this.recording.preStep('decided', this.nextRawSeq, { turn, step, decision: said });
      return decision;
    }, (error) => {
      this.recording.preStep('threw', this.nextRawSeq, { turn, step, error: `${error?.name ?? 'Error'}: ${error?.message}` });
      throw error;
    });
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
    const answer = c.kind === 'tool-calls' && !aborted ? { context: c.context, conclude: c.conclude } : { context: [], conclude: false };
    return this.process.resolvePark(answer);
  }

  // A crash: the log as persisted is all that survives; a new process loads it and repairs it.
  async restart() {
    await this.settle();
    await this.process.flush();
    const before = this.view.lastRawSeq;
    const lastKept = this.view.kept.at(-1);
    // The killed process answers nothing more; close() tears it down with its await point.
    // A host resumes a persisted session and creates one that never reached the disk.
    const start = this.entries.length;
    this.recording?.boundary(true, this.snapshot());
    await this.nextProcess(before >= 0);
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
  async nextProcess(resume) {
    if (this.recording) this.recording.paused = true;
    await this.launch(resume);
    for (const event of this.agent.session.events) if (event.seq > this.view.lastRawSeq) this.record({ event });
    if (this.recording) this.recording.paused = false;
  }

  state() {
    const parked = this.parked;
    return {
      inbox: { 'next-turn': [...this.agent.inbox.nextTurn], 'next-step': [...this.agent.inbox.nextStep] },
      phase: parked === null ? 'idle' : PHASES[parked.kind],
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
