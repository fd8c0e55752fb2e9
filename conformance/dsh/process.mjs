// One process of the real dsh agent loop, wired from its published packages, with every await
// point the command language answers held open until the command arrives.
//
// The loop is asynchronous; the command language is not.  So each place where the real loop waits
// on its environment is a *park*: the agent/pre-step listener (a `decide`), the model provider's
// stream (a `step-result`), the tool's execution (a tool answer) and the agent/turn-stopping
// listener (a `turn-stopping`).  A park records what it waits for and a resolver; the command
// resolves it, and the adapter then lets the loop run until it parks again or goes idle.
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Context } from '@deepseek-ai/cordis';
import LlmRuntime, { LlmAdapter } from '@deepseek-ai/dsh-llm';
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session';
import SystemPrompt from '@deepseek-ai/dsh-system-prompt';
import ToolRuntime, { defineContentToolFixture } from '@deepseek-ai/dsh-tools';
import AgentRegistry from '@deepseek-ai/dsh-agent';
import AgentLoop from '@deepseek-ai/dsh-agent-loop';
import JsonlSessionPersistence from '@deepseek-ai/dsh-session-persistence-jsonl';

export const PROVIDER = 'loopspec';
export const MODEL = 'scripted';
export const TOOL = 'tool';
const NOTIFICATIONS = ['agent/inbox/inserted', 'agent/inbox/discarded', 'agent/inbox/claimed', 'agent/status', 'agent/error'];

// The scripted model: every call parks, in the process of the agent that makes it, until a
// step-result says how the answer ends.
class ScriptedModel extends LlmAdapter {
  constructor(context) {
    super();
    this.context = context;
  }

  async *stream(options) {
    const answer = await this.context.processOf(this.context.ctx.agents.currentInitiator()).park('step', { signal: options.signal });
    for (const chunk of answer.chunks) yield chunk;
    if (answer.throws !== undefined) throw answer.throws;
  }
}

// One wired cordis Context: the plugins, the scripted provider, the tool and the listeners, each
// handing what it sees to the process of the agent it concerns (looked up by the agent's session
// id).  Wiring costs about 10 ms, so a host keeps one context for the first process of every case,
// one case at a time; a restarted case gets a fresh context of its own (a crash loses the process).
export class DshContext {
  static async wire(root) {
    const context = new DshContext(root);
    await context.start();
    return context;
  }

  constructor(root) {
    this.root = root; // the JSONL store's folder
    this.ctx = null;
    this.processes = new Map(); // session id -> the DshProcess whose agent it is
  }

  // The process of an agent or of its session (the two share their id).
  processOf(subject) {
    const process = this.processes.get(subject?.id);
    if (process === undefined) throw new Error(`the real loop reached an agent no case owns: ${subject?.id}`);
    return process;
  }

  async start() {
    const ctx = new Context();
    this.ctx = ctx;
    await ctx.plugin(LlmRuntime);
    await ctx.plugin(SessionStore);
    await ctx.plugin(SystemPrompt, { persona: '' });
    await ctx.plugin(ToolRuntime);
    await ctx.plugin(AgentRegistry);
    // Uncompressed: zstd costs a third of a command's time here and changes nothing the loop does.
    await ctx.plugin(JsonlSessionPersistence, { root: this.root, compression: 'none' });
    await ctx.plugin(AgentLoop);
    ctx.llm.registerAdapter([PROVIDER], new ScriptedModel(this));
    ctx.tools.register(defineContentToolFixture({
      name: TOOL,
      description: 'a tool whose outcome the conformance command says',
      parameters: {},
      execute: async (_args, exec) => {
        const answer = await this.processOf(exec.agent).park('tool', { signal: exec.signal });
        for (const context of answer.context) exec.deferContext(context);
        if (answer.conclude) exec.concludeTurn();
        return [{ type: 'text', text: 'done' }];
      },
    }));
    ctx.on('session/event', (session, event) => this.processOf(session).sink({ event }));
    for (const type of NOTIFICATIONS) ctx.on(type, (payload) => this.processOf(payload.agent).sink({ note: { type, ...payload } }));
    ctx.on('agent/pre-step', (payload, next) => this.processOf(payload.agent).park('decide', { payload, next }));
    ctx.on('agent/turn-stopping', (payload) => this.processOf(payload.agent).park('stopping', { payload }));
    ctx.on('agent/request-error', (payload) => this.processOf(payload.agent).takeRetry());
  }

  // A case starts on a host with no agent, session or process left from the one before: a case's
  // agent, listeners' targets and store are its own.
  assertUnused() {
    const left = [...this.processes.keys(), ...this.ctx.agents.list().map((a) => a.id), ...this.ctx.sessions.list().map((s) => s.id)];
    if (left.length > 0) throw new Error(`the host still holds the last case's ${[...new Set(left)].join(', ')}`);
  }

  // A host's shutdown: the root context is disposed; every park still open is then refused, the way
  // a provider and a tool stop when their process is torn down.
  async dispose() {
    const done = this.ctx.fiber.dispose();
    await Promise.all([...this.processes.values()].map((process) => process.refuseParks()));
    await done;
  }

  // A store in `root` holding one session's log exactly as `events` (its header `meta`), written by
  // the real writer through the persistence service's own seam (create, then one durable append),
  // in a context of its own that is gone before any process loads the store.  The bytes are those
  // the live write path leaves for the same events (checked when this was written).
  static async writeStore(root, { meta, events }) {
    const writer = await DshContext.wire(root);
    try {
      await writer.ctx.sessionPersistence.create(meta);
      await writer.ctx.sessionPersistence.append(meta.id, events);
    } finally {
      await writer.dispose();
    }
  }
}

// One process of a case: an agent in a context, the context its own (`owned`: a restarted case's)
// or a host's, shared by the first process of every case.
export class DshProcess {
  // sink(entry) receives {event} for each durable commit and {note} for each live notification,
  // in emission order; onPark() is called when the loop reaches an await point.
  constructor({ sessionId, context, owned, sink, onPark }) {
    this.sessionId = sessionId;
    this.context = context;
    this.owned = owned;
    this.sink = sink;
    this.onPark = onPark;
    this.parked = null;
    this.agent = null;
    this.killed = false; // a crash at a hop: the process runs on, unheard, until its case is torn down
    this.refusing = false; // its shutdown refuses every park, those reached after it began too
  }

  get root() {
    return this.context.root;
  }

  get ctx() {
    return this.context.ctx;
  }

  // Create the agent (or load it from the store when `resume` is set).
  async start({ resume }) {
    const { ctx } = this.context;
    this.context.processes.set(this.sessionId, this);
    const options = { provider: PROVIDER, model: MODEL };
    const id = SessionId(this.sessionId);
    const handle = resume
      ? await ctx.agents.resume({ resumeSessionId: id, agentOptions: options })
      : await ctx.agents.create({ sessionId: id, agentOptions: options });
    this.handle = handle;
    this.agent = handle.agent ?? ctx.agents.get(id);
  }

  // Hold the loop at an await point until `resolvePark` answers it.  A user's cancel does not end
  // a park: the next command answers it, as the command language has it.  Only a host's shutdown
  // (`dispose`) does, the way a provider and a tool stop when their process is torn down.
  //
  // A park reached once the shutdown began refusing parks (a listener of the teardown's own discards
  // started a driver, say) is refused too: nothing would ever answer it.
  park(kind, details) {
    return new Promise((resolve, reject) => {
      this.parked = { kind, ...details, resolve, reject };
      this.onPark();
      if (this.refusing) this.refuseParks();
    });
  }

  // Answer the current park (its resolver's value), and forget it.
  resolvePark(value) {
    const { resolve } = this.parked;
    this.parked = null;
    resolve(value);
  }

  rejectPark(error) {
    const { reject } = this.parked;
    this.parked = null;
    reject(error);
  }

  // agent/request-error: the pending step-result said whether the request is retried.
  takeRetry() {
    const retry = this.retryNext === true;
    this.retryNext = false;
    return retry ? { kind: 'retry' } : undefined;
  }

  // Everything the persistence backend was handed has reached the disk.
  async flush() {
    await this.ctx.sessions.flush(this.agent.session);
  }

  // Tear the process down: its own context disposed, as a host does on exit; in a shared context
  // only its agent, through the handle its creation returned (the lifecycle's own teardown).
  async dispose() {
    if (this.disposing) return this.disposing;
    this.disposing = this.owned ? this.context.dispose() : this.disposeAgent();
    return this.disposing;
  }

  async disposeAgent() {
    const done = this.handle.dispose();
    await this.refuseParks();
    await done;
    this.context.processes.delete(this.sessionId);
  }

  // The session's store as this process left it, copied into the folder `root` (a shared store's
  // other sessions left out).
  copyStore(root) {
    if (this.owned) {
      cpSync(this.root, root, { recursive: true });
      return;
    }
    for (const folder of this.sessionFolders()) cpSync(join(this.root, folder), join(root, folder), { recursive: true });
  }

  // A shared store keeps each session in a folder named after its id, in a folder per project.
  sessionFolders() {
    if (!/^[A-Za-z0-9._-]+$/.test(this.sessionId)) throw new Error(`a shared store cannot name the folder of session ${this.sessionId}`);
    return readdirSync(this.root).map((project) => join(project, this.sessionId)).filter((folder) => existsSync(join(this.root, folder)));
  }

  // After `dispose`: the process's store removed.  A shared store's session folder is written until
  // the session's retirement has drained the writes its teardown made; a read of the store queues
  // behind that.
  async removeStore() {
    if (this.owned) {
      rmSync(this.root, { recursive: true, force: true, maxRetries: 3 });
      return;
    }
    try {
      await this.ctx.sessionPersistence.readFrom(SessionId(this.sessionId), Number.MAX_SAFE_INTEGER);
    } catch (error) {
      // A session that committed nothing never reached the disk.
      if (error?.message !== `session "${this.sessionId}" not found`) throw error;
    }
    for (const folder of this.sessionFolders()) rmSync(join(this.root, folder), { recursive: true, force: true, maxRetries: 3 });
  }

  // A teardown waits for the loop to go idle, so every park it reaches is refused.
  async refuseParks() {
    this.refusing = true;
    while (this.parked !== null) {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.parked === null) continue;
      // The park's `refused` hook, if any, hears of it first, as the listener's await throws.
      const error = new DOMException('the host is shutting down', 'AbortError');
      this.parked.refused?.(error);
      this.rejectPark(error);
    }
  }
}
