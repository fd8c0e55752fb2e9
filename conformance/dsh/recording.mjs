// A run of the real loop written down in the repository's recording format
// (examples/recordings/README.md): the raw log, the live stream in emission order and the end state.
// Unlike the adapter's observations, nothing here goes through the view: `loopspec reproduce` and
// `loopspec check --live` read the real log exactly as the real session holds it.

// The recording format's js-number spelling for splice coordinates.
function jsNumberArg(value) {
  if (Object.is(value, -0)) return '-0';
  if (Number.isInteger(value)) return value;
  return String(value);
}

// Public calls: the op name the format gives them and their args, from the decoded command.
const CALLS = {
  // The three aliases where one applies; a non-waking send to next-turn is the general call.
  send: (c) => {
    const alias = c.target === 'next-turn' && c.wake ? 'followup' : c.target === 'next-step' ? (c.wake ? 'steer' : 'inject') : null;
    return alias ? { op: alias, args: { id: c.message.id } }
      : { op: 'send', args: { id: c.message.id, target: c.target, wake: c.wake } };
  },
  clear: () => ({ op: 'inbox.clear', args: {} }),
  cancel: (c) => ({ op: 'cancel', args: { cause: c.cause, ...(c.keepInbox ? { keepInbox: true } : {}) } }),
  append: (c) => ({ op: 'inbox.append', args: { target: c.target, id: c.message.id } }),
  prepend: (c) => ({ op: 'inbox.prepend', args: { target: c.target, id: c.message.id } }),
  replace: (c) => ({ op: 'inbox.replace', args: { messageId: c.id, newId: c.message.id } }),
  remove: (c) => ({ op: 'inbox.remove', args: { messageId: c.id } }),
  splice: (c) => ({
    op: 'inbox.splice',
    args: { target: c.target, start: jsNumberArg(c.start), deleteCount: jsNumberArg(c.deleteCount), inserted: c.inserted.map((m) => m.id) },
  }),
};

// The call a command makes, as the format writes it, or null when the format has no such call.
export function recordedCall(command) {
  const call = CALLS[command.op];
  return call === undefined ? null : call(command);
}

function resultOf(op, value) {
  return op === 'inbox.splice' ? value.map((m) => ({ id: m.id })) : value ?? null;
}

function errorText(error) {
  return `${error?.name ?? 'Error'}: ${error?.message ?? String(error)}`;
}

export class Recording {
  constructor(name) {
    this.name = name;
    this.live = [];
    this.paused = false;
    this.restarts = [];
  }

  // A raw commit or notification; `nextSeq` is the current process's log length.
  raw(entry, nextSeq) {
    if (this.paused) return;
    if (entry.event) {
      this.live.push({ kind: 'durable', seq: entry.event.seq, type: entry.event.type });
      return;
    }
    const { type, agent: _agent, ...fields } = entry.note;
    if (type === 'agent/error') fields.error = errorText(fields.error);
    this.live.push({ kind: 'live', type, nextSeq, ...fields });
  }

  // An observation of a listener hook (`agent/pre-step`, `agent/turn-stopping`): its window runs
  // from `invoked` to the phase that says how the listener ended.
  listener(type, phase, nextSeq, fields) {
    if (!this.paused) this.live.push({ kind: 'live', type, phase, nextSeq, ...fields });
  }

  preStep(phase, nextSeq, fields) {
    this.listener('agent/pre-step', phase, nextSeq, fields);
  }

  // `within`: the listener hook a call is made from (absent for the scenario's own calls).
  begin(call, nextSeq, within) {
    this.live.push({ kind: 'op-begin', op: call.op, args: call.args, nextSeq, ...(within ? { within } : {}) });
  }

  end(call, before, after, outcome, within) {
    const told = 'threw' in outcome ? { threw: errorText(outcome.threw) } : { result: resultOf(call.op, outcome.result) };
    this.live.push({
      kind: 'op-end', op: call.op, args: call.args, nextSeqBefore: before, nextSeqAfter: after, ...told, ...(within ? { within } : {}),
    });
  }

  boundary(crash, view) {
    this.restarts.push({ ...view, crash });
    const { nextTurn, nextStep, status, eventCount } = view;
    const text = crash ? 'the process is killed here' : 'the process is shut down here';
    this.live.push({ kind: 'note', text, nextSeq: eventCount, nextTurn, nextStep, eventCount, status, crash });
  }

  // The next process has loaded the log (its repair closers and end-seed are in it, unmarked).
  resumed(view) {
    this.restarts.at(-1).after ??= view;
    const { nextTurn, nextStep, status, eventCount } = view;
    this.live.push({ kind: 'note', text: 'the next process loaded the log', nextSeq: eventCount, nextTurn, nextStep, status, eventCount });
  }

  files(events, end) {
    const final = { scenario: this.name, ...end, hasPending: end.nextTurn.length + end.nextStep.length > 0 };
    const first = this.restarts[0];
    if (first !== undefined) {
      const { after, crash, ...before } = first;
      Object.assign(final, { beforeRestart: { ...before, crash }, reconstructedAfterResume: after, persistedFiles: [] });
    }
    return {
      events: events.map((e) => `${JSON.stringify(e)}\n`).join(''),
      live: this.live.map((r) => `${JSON.stringify(r)}\n`).join(''),
      final: `${JSON.stringify(final, null, 2)}\n`,
    };
  }
}
