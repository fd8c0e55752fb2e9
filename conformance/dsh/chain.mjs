// The listener language of `decide` (spec/command-language.md, DECIDE-3) as real agent/pre-step
// waterfall listeners: each is an async (next) => decision that acts on the real agent while it
// runs, so an action the agent refuses throws right there, exactly like a listener's own throw.
// The chain is composed outermost first around the real waterfall's own `next`.

function shaped(result, transform) {
  switch (transform.kind) {
    case 'keep': return result;
    case 'replace': return transform.decision;
    case 'drop':
      if (result.kind === 'reject') return result;
      return { ...result, messages: result.messages.filter((m) => !transform.ids.includes(m.id)) };
    case 'add':
      if (result.kind === 'reject') return result;
      return { ...result, messages: [...result.messages, ...transform.messages] };
    default: throw new Error(`unknown transform ${transform.kind}`);
  }
}

function matches(when, payload) {
  return (when.turn === null || when.turn === payload.turn) && (when.step === null || when.step === payload.step);
}

// One decoded listener as a waterfall step over `inner` (the rest of the chain).
function listenerStep(listener, payload, inner, act) {
  return async () => {
    if (!matches(listener.when, payload)) return inner();
    act(listener.before);
    if (listener.kind === 'throw') throw new Error(listener.message);
    if (listener.kind === 'veto') return listener.decision;
    const result = await inner();
    act(listener.after);
    act(result.kind === 'enter' ? listener.afterEnter : listener.afterReject);
    return shaped(result, listener.transform);
  };
}

// The decision of the whole chain over the real default `next`; `act(actions)` performs actions
// on the real agent and lets its refusals propagate as throws.
export function runChain(listeners, payload, next, act) {
  let call = next;
  for (const listener of [...listeners].reverse()) call = listenerStep(listener, payload, call, act);
  return call();
}
