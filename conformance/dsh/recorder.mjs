// Records runs of the real loop in the repository's recording format (examples/recordings/README.md):
//   node recorder.mjs OUT_DIR SCENARIO.json...
// A scenario is a vectors case (`{id, steps: [{command}]}`) or a named scenario of the same shape,
// whose steps may also hold `{"op": "shutdown"}` (an orderly shutdown: the root context disposed,
// then the log loaded again; with `"listener": "returns"` a waiting pre-step listener returns once
// the teardown began, else the teardown refuses it) and `{"op": "react", "on": TYPE, "when": {FIELD: VALUE}, "actions": [COMMAND]}`
// (from then on, a listener of the agent notification TYPE makes the calls once, inside the first
// such notification whose fields match, `messageId` naming the notified message's id).  A step's
// `after` says when the next one lands (harness.mjs `after`: settled, a tick, or `now` after some
// microtask hops; settled when absent).  Scenarios the recording format cannot carry are skipped, saying why
// (a listener of a notification the recorder does not listen to, say).  One line per scenario on stdout: recorded, or skipped and why.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { RealCase, Unsupported } from './harness.mjs';
import { Recording, recordedCall } from './recording.mjs';

const require = createRequire(import.meta.url);
const { command: decodeCommand } = require('../../examples/adapters/js/commands.js');

const ANSWERS = new Set(['decide', 'step-result', 'turn-stopping', 'restart', 'shutdown']);
// The agent notifications a scenario's listener may act in (examples/recordings/README.md).
const REACTIONS = new Set(['agent/status', 'agent/inbox/claimed', 'agent/inbox/inserted', 'agent/inbox/discarded', 'agent/error']);

// Why the format cannot carry a call the scenario or a listener makes, or null.
function uncallable(c, by) {
  return recordedCall(c) === null ? `the format has no call for ${c.op}${by}` : null;
}

// Why the format cannot carry this command, or null.  A listener's actions are calls made within
// its hook (examples/recordings/README.md), so they need calls of the format too.
function unrecordable(c) {
  const acts = c.op === 'decide' ? c.listeners.flatMap((l) => [l.before, l.after, l.afterEnter, l.afterReject].flatMap((a) => a ?? []))
    : c.op === 'turn-stopping' ? c.actions : [];
  if (c.op === 'react') {
    if (!REACTIONS.has(c.on)) return `the recorder has no listener of ${c.on}`;
    return c.actions.map((a) => uncallable(a, ` (made by an ${c.on} listener)`)).find((w) => w !== null) ?? null;
  }
  if (ANSWERS.has(c.op)) return acts.map((a) => uncallable(a, ` (made by a ${c.op} listener)`)).find((w) => w !== null) ?? null;
  return uncallable(c, '');
}

async function record(scenario, out) {
  const name = scenario.id.replaceAll('/', '__');
  let commands;
  try {
    commands = scenario.steps.map((s) => (s.command.op === 'shutdown' ? { op: 'shutdown', returns: s.command.listener === 'returns', now: s.command.now === true }
      : s.command.op === 'react' ? { ...s.command, actions: s.command.actions.map(decodeCommand) } : decodeCommand(s.command)));
  } catch (error) {
    return `skipped ${scenario.id}: not a command of the full profile (${error.message})`;
  }
  const why = commands.map(unrecordable).find((w) => w !== null);
  if (why) return `skipped ${scenario.id}: ${why}`;
  const recording = new Recording(name);
  const run = await RealCase.start(name, recording);
  try {
    for (const [index, command] of commands.entries()) {
      if (command.op === 'shutdown') await run.shutdown(command);
      else if (command.op === 'react') run.react(command);
      else await run.observe(command, scenario.steps[index].after);
    }
    await run.settle();
    const { events, live, final } = recording.files(run.agent.session.events, run.snapshot());
    writeFileSync(join(out, `${name}.events.jsonl`), events);
    writeFileSync(join(out, `${name}.live.jsonl`), live);
    writeFileSync(join(out, `${name}.final.json`), final);
    return `recorded ${scenario.id}`;
  } catch (error) {
    if (error instanceof Unsupported) return `skipped ${scenario.id}: the adapter cannot express it (${error.message})`;
    throw error;
  } finally {
    await run.close();
  }
}

async function main([out, ...files]) {
  mkdirSync(out, { recursive: true });
  for (const file of files) process.stdout.write(`${await record(JSON.parse(readFileSync(file, 'utf8')), out)}\n`);
  process.exit(0);
}

main(process.argv.slice(2));
