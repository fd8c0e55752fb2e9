// One process of the real dsh agent loop, wired from its published packages, with every await
// point the command language answers held open until the command arrives.
//
// The loop is asynchronous; the command language is not.  So each place where the real loop waits
// on its environment is a *park*: the agent/pre-step listener (a `decide`), the model provider's
// stream (a `step-result`), the tool's execution (a tool answer) and the agent/turn-stopping
// listener (a `turn-stopping`).  A park records what it waits for and a resolver; the command
// resolves it, and the adapter then lets the loop run until it parks again or goes idle.
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

// The scripted model: every call parks until a step-result says how the answer ends.
class ScriptedModel extends LlmAdapter {
  constructor(process) {
    super();
    this.process = process;
  }

  async *stream(options) {
    const answer = await this.process.park('step', { signal: options.signal });
    for (const chunk of answer.chunks) yield chunk;
    if (answer.throws !== undefined) throw answer.throws;
  }
}

export class DshProcess {
  // sink(entry) receives {event} for each durable commit and {note} for each live notification,
  // in emission order; onPark() is called when the loop reaches an await point.
  constructor({ sessionId, root, sink, onPark }) {
    this.sessionId = sessionId;
    this.root = root;
    this.sink = sink;
    this.onPark = onPark;
    this.parked = null;
    this.ctx = null;
    this.agent = null;
  }

  // Wire the plugins, then create the agent (or load it from `root` when `resume` is set).
  async start({ resume }) {
    const ctx = new Context();
    this.ctx = ctx;
    await ctx.plugin(LlmRuntime);
    await ctx.plugin(SessionStore);
    await ctx.plugin(SystemPrompt, { persona: '' });
    await ctx.plugin(ToolRuntime);
    await ctx.plugin(AgentRegistry);
    // Uncompressed: zstd costs a third of a command's time here and changes nothing the loop does.
    await ctx.plugin(JsonlSessionPersistence, { root: this.root, writeBatchMaxDelayMs: 1, compression: 'none' });
    await ctx.plugin(AgentLoop);
    ctx.llm.registerAdapter([PROVIDER], new ScriptedModel(this));
    ctx.tools.register(defineContentToolFixture({
      name: TOOL,
      description: 'a tool whose outcome the conformance command says',
      parameters: {},
      execute: async (_args, exec) => {
        const answer = await this.park('tool', { signal: exec.signal });
        for (const context of answer.context) exec.deferContext(context);
        if (answer.conclude) exec.concludeTurn();
        return [{ type: 'text', text: 'done' }];
      },
    }));
    ctx.on('session/event', (_session, event) => this.sink({ event }));
    for (const type of NOTIFICATIONS) ctx.on(type, (payload) => this.sink({ note: { type, ...payload } }));
    ctx.on('agent/pre-step', (payload, next) => this.park('decide', { payload, next }));
    ctx.on('agent/turn-stopping', (payload) => this.park('stopping', { payload }));
    ctx.on('agent/request-error', () => this.takeRetry());
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
  park(kind, details) {
    return new Promise((resolve, reject) => {
      this.parked = { kind, ...details, resolve, reject };
      this.onPark();
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

  // A graceful shutdown: the root context is disposed, as a host does on exit.
  async dispose() {
    if (this.disposing) return this.disposing;
    this.disposing = this.tearDown();
    return this.disposing;
  }

  async tearDown() {
    const done = this.ctx.fiber.dispose();
    while (this.parked !== null) {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.parked !== null) this.rejectPark(new DOMException('the host is shutting down', 'AbortError'));
    }
    await done;
  }
}
