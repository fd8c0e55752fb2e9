// Seeded random lifecycles of the real loop, recorded in the repository's recording format
// (examples/recordings/README.md):
//   node lifecycles.mjs OUT_DIR FIRST_SEED COUNT
// Each seed drives one case of the published packages through a random walk of the command
// language: public calls (sends, inbox edits, cancels with and without keepInbox, refused ones
// included), the answers at whichever await point the loop has parked at (pre-step chains that
// enter, reject, rewrite or throw and call the agent; text answers, max-tokens, failures,
// request errors, tool calls whose tools return context or conclude the turn; turn-stopping
// listeners that steer, follow up or throw), listeners of the agent's notifications, orderly
// shutdowns (a waiting pre-step listener returning or refused) and crashes.  Each command is
// followed by a timing that says when the next one lands: `settled` (the loop parked or went
// idle), `tick` (one timer tick) or `now` after a number of microtask hops, so that a call lands
// inside the loop's own promise chains, after a decision is returned and before the loop acts on
// it, between `turn/end` and `idle`, inside a notification's emission.
//
// Why no scheduling library: fast-check's `fc.scheduler` decides which of the promises it wraps
// resolves next, but the points a call must reach here are the real loop's own awaits (the
// waterfall, the system prompt, persistence, `kick`'s loop), which nothing outside the packages
// can wrap; counting microtask hops after a call is what reaches each of them in turn, and it is
// deterministic for a seed, so a run is replayed exactly.
//
// Writes NAME.events.jsonl, NAME.live.jsonl, NAME.final.json and NAME.scenario.json (the walk as a
// recorder scenario, its timings included: `node recorder.mjs OUT SCENARIO` records it again) for
// NAME = seed-N; one line per seed on stdout.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { RealCase, Unsupported } from './harness.mjs';
import { Recording } from './recording.mjs';

const require = createRequire(import.meta.url);
const { command: decodeCommand } = require('../../examples/adapters/js/commands.js');

// mulberry32: a small, well-known 32-bit generator; the seed alone fixes the walk.
function generator(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    chance: (p) => next() < p,
    int: (n) => Math.floor(next() * n),
    pick(list) { return list[Math.floor(next() * list.length)]; },
  };
}

const NOTIFICATIONS = ['agent/status', 'agent/inbox/claimed', 'agent/inbox/inserted', 'agent/inbox/discarded', 'agent/error'];

// One walk: what it may say next, given where the real loop stands.
class Walk {
  constructor(seed) {
    this.rng = generator(seed);
    this.ids = 0;
    this.said = []; // every id the walk has used, for a refused reuse now and then
  }

  message() {
    const { rng } = this;
    const id = this.said.length > 0 && rng.chance(0.08) ? rng.pick(this.said) : `m${++this.ids}`;
    this.said.push(id);
    return { id, role: 'user', content: [{ type: 'text', text: `text of ${id}` }], source: { kind: 'user' } };
  }

  pendingId(run) {
    const pending = [...run.agent.inbox.nextTurn, ...run.agent.inbox.nextStep].map((m) => m.id);
    return pending.length > 0 && this.rng.chance(0.85) ? this.rng.pick(pending) : `m${this.ids + 1000}`;
  }

  // A public call, as a command of the language.
  call(run) {
    const { rng } = this;
    const target = rng.pick(['next-turn', 'next-step']);
    switch (rng.pick(['followup', 'followup', 'followup', 'steer', 'steer', 'inject', 'send', 'append', 'prepend',
      'splice', 'replace', 'remove', 'clear', 'cancel', 'cancel'])) {
      case 'followup': return { op: 'followup', message: this.message() };
      case 'steer': return { op: 'steer', message: this.message() };
      case 'inject': return { op: 'inject', message: this.message() };
      case 'send': return { op: 'send', message: this.message(), target, wake: rng.chance(0.5) };
      case 'append': return { op: 'append', target, message: this.message() };
      case 'prepend': return { op: 'prepend', target, message: this.message() };
      case 'splice': return { op: 'splice', target, start: rng.int(3) - 1, deleteCount: rng.int(2), inserted: rng.chance(0.6) ? [this.message()] : [] };
      case 'replace': return { op: 'replace', id: this.pendingId(run), message: this.message() };
      case 'remove': return { op: 'remove', id: this.pendingId(run) };
      case 'clear': return { op: 'clear' };
      default: return { op: 'cancel', cause: { kind: 'user' }, keepInbox: rng.chance(0.4) };
    }
  }

  actions(run, most) {
    return Array.from({ length: this.rng.int(most + 1) }, () => this.call(run));
  }

  listener(run) {
    const { rng } = this;
    switch (rng.pick(['wrap', 'wrap', 'wrap', 'veto', 'throw'])) {
      case 'veto': return { kind: 'veto', decision: { kind: 'reject' }, before: this.actions(run, 1) };
      case 'throw': return { kind: 'throw', message: 'the listener failed', before: this.actions(run, 1) };
      default: {
        const transform = rng.pick([{ kind: 'keep' }, { kind: 'keep' }, { kind: 'add', messages: [this.message()] },
          { kind: 'drop', ids: [this.pendingId(run)] }, { kind: 'replace', decision: { kind: 'enter', messages: [] } }]);
        return { kind: 'wrap', transform, before: this.actions(run, 1), after: this.actions(run, 1),
          afterEnter: [], afterReject: [] };
      }
    }
  }

  // The answer at the loop's current await point.
  answer(run) {
    const { rng } = this;
    const parked = run.parked;
    if (parked.kind === 'decide') {
      return { op: 'decide', listeners: rng.chance(0.5) ? [] : Array.from({ length: 1 + rng.int(2) }, () => this.listener(run)) };
    }
    if (parked.kind === 'stopping') {
      return { op: 'turn-stopping', actions: rng.chance(0.6) ? [] : this.actions(run, 2), raises: rng.chance(0.15) ? 'the turn-stopping listener failed' : null };
    }
    if (parked.kind === 'tool') {
      return { op: 'step-result', kind: 'tool-calls', context: rng.chance(0.3) ? [this.message()] : [], conclude: rng.chance(0.3) };
    }
    switch (rng.pick(['stop', 'stop', 'max-tokens', 'tool-call', 'tool-call', 'tool-calls', 'fail', 'request-error'])) {
      case 'tool-call': return { op: 'step-result', kind: 'tool-call' };
      case 'tool-calls': return { op: 'step-result', kind: 'tool-calls', context: rng.chance(0.3) ? [this.message()] : [], conclude: rng.chance(0.3) };
      case 'fail': return { op: 'step-result', kind: 'fail', error: 'the model failed' };
      case 'request-error': return { op: 'step-result', kind: 'request-error', retry: rng.chance(0.5) };
      default: return { op: 'step-result', kind: rng.pick(['stop', 'max-tokens']) };
    }
  }

  timing() {
    const { rng } = this;
    const roll = rng.int(20);
    if (roll < 9) return { after: 'settled' };
    if (roll < 12) return { after: 'tick' };
    return { after: 'now', hops: rng.int(13) };
  }

  // The next step: a notification listener, a boundary of the process, an answer or a call.
  next(run, restarts) {
    const { rng } = this;
    if (rng.chance(0.05)) {
      const on = rng.pick(NOTIFICATIONS);
      const when = on === 'agent/status' ? { status: rng.pick(['idle', 'running']) } : {};
      return { command: { op: 'react', on, when, actions: [this.call(run)] } };
    }
    // A store keeps sessions by their events: one that stored none has nothing to resume.
    if (restarts < 2 && run.agent.session.events.length > 0 && rng.chance(0.05)) {
      if (rng.chance(0.5)) return { command: { op: 'restart' } };
      return { command: { op: 'shutdown', ...(rng.chance(0.5) ? { listener: 'returns' } : {}), ...(rng.chance(0.5) ? { now: true } : {}) } };
    }
    const command = run.parked !== null && rng.chance(0.6) ? this.answer(run) : this.call(run);
    return { command, after: this.timing() };
  }
}

// `seen` is told the walk's case and its current step, for the line of a walk that never ends.
async function walk(seed, out, seen) {
  const name = `seed-${seed}`;
  const recording = new Recording(name);
  const run = await RealCase.start(name, recording);
  seen.run = run;
  const w = new Walk(seed);
  const steps = [];
  let restarts = 0;
  try {
    const length = 8 + w.rng.int(25);
    while (steps.length < length) {
      const step = w.next(run, restarts);
      seen.step = step;
      const { command } = step;
      if (process.env.LIFECYCLE_TRACE) process.stderr.write(`${JSON.stringify(step)}\n`);
      if (command.op === 'react') {
        run.react({ ...command, actions: command.actions.map(decodeCommand) });
      } else if (command.op === 'shutdown') {
        restarts += 1;
        await run.shutdown({ returns: command.listener === 'returns', now: command.now === true });
      } else {
        if (command.op === 'restart') restarts += 1;
        try {
          await run.observe(decodeCommand(command), step.after);
        } catch (error) {
          if (error instanceof Unsupported) continue; // nothing happened: pick again
          throw error;
        }
      }
      steps.push(step);
    }
    await run.settle();
    const { events, live, final } = recording.files(run.agent.session.events, run.snapshot());
    writeFileSync(join(out, `${name}.events.jsonl`), events);
    writeFileSync(join(out, `${name}.live.jsonl`), live);
    writeFileSync(join(out, `${name}.final.json`), final);
    const scenario = { id: name, description: `the seeded random lifecycle ${seed} (conformance/dsh/lifecycles.mjs)`, steps };
    writeFileSync(join(out, `${name}.scenario.json`), `${JSON.stringify(scenario)}\n`);
    return `recorded ${name} (${steps.length} steps)${await teardown(run)}`;
  } catch (error) {
    await teardown(run);
    throw error;
  }
}

// The case's processes disposed.  A teardown that does not finish is said on the seed's line (the
// recording is written by then) and left behind: each case has contexts of its own.
const TEARDOWN_MS = 3000;

async function teardown(run) {
  let timer;
  const late = new Promise((resolve) => { timer = setTimeout(() => resolve('late'), TEARDOWN_MS); });
  const outcome = await Promise.race([run.close().then(() => 'done'), late]);
  clearTimeout(timer);
  return outcome === 'late' ? `; its teardown did not finish within ${TEARDOWN_MS} ms` : '';
}

// A walk that does not end is said on its seed's line, with the step it stands at and the agent's
// state, and left behind, and the next seed goes on; its recording is not written.  (Seen: a
// shutdown whose teardown's discards a listener answers with a waking send, finding F17: the real
// send announces the running status, then throws, as the agent registry refuses a driver during
// disposal, and the agent stays running with no driver, so the disposal waits for it forever.)
// The timer also keeps Node from exiting quietly in the middle, which it does when nothing is
// left for the event loop to do.
const PATIENCE_MS = 10000;

function stuck(seed, { run, step }) {
  const where = step === undefined ? 'before its first step' : `at its step ${JSON.stringify(step.command.op)}`;
  const agent = run?.agent;
  const state = agent ? `, the agent ${agent.status}, ${run.parked === null ? 'nothing' : run.parked.kind} parked` : '';
  return `stuck seed-${seed}: the walk did not end within ${PATIENCE_MS} ms, ${where}${state}`;
}

async function main([out, first, count]) {
  mkdirSync(out, { recursive: true });
  const start = Number(first);
  for (let seed = start; seed < start + Number(count); seed += 1) {
    let timer;
    const late = new Promise((resolve) => { timer = setTimeout(() => resolve(null), PATIENCE_MS); });
    const seen = {};
    const said = await Promise.race([walk(seed, out, seen), late]);
    clearTimeout(timer);
    process.stdout.write(`${said ?? stuck(seed, seen)}\n`);
  }
  process.exit(0);
}

main(process.argv.slice(2));
