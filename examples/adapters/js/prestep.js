'use strict';
// The agent/pre-step waterfall (DECIDE-2, DECIDE-3), run the way the real Cordis waterfall runs:
// outermost listener first, each acting on the agent *as it runs* (so an action that throws is the
// listener throwing right there), calling next() or not, and shaping what next() returned.
//
// Listener shapes (already decoded by the adapter):
//   {kind: 'wrap', transform, before: [action], after: [action], afterEnter: [action], afterReject: [action], when}
//   {kind: 'veto', decision, before: [action], when}
//   {kind: 'throw', message, before: [action], when}
// when: {turn, step} (null = any): a listener whose when does not match the payload passes through.
// transform: {kind: 'keep'} | {kind: 'replace', decision} | {kind: 'drop', ids} | {kind: 'add', messages}
// decision: {kind: 'reject'} | {kind: 'enter', messages}

class ListenerThrew extends Error {}

function shape(result, transform) {
  switch (transform.kind) {
    case 'keep':
      return result;
    case 'replace':
      return transform.decision;
    case 'drop':
      if (result.kind === 'reject') return result;
      return { kind: 'enter', messages: result.messages.filter((m) => !transform.ids.includes(m.id)) };
    case 'add':
      if (result.kind === 'reject') return result;
      return { kind: 'enter', messages: [...result.messages, ...transform.messages] };
    default:
      throw new Error(`unknown transform ${transform.kind}`);
  }
}

// Returns the outermost decision; throws ListenerThrew (with the message) when a listener throws,
// or when one of its actions is refused, which is the same thing from the loop's side.
// payload: {turn, step}, the running turn and the number the step gets if entered (DECIDE-1).
function runWaterfall(claimed, listeners, perform, payload) {
  const matches = (w) => !w || ((w.turn === null || w.turn === payload.turn) && (w.step === null || w.step === payload.step));
  const act = (actions) => {
    for (const action of actions) {
      try {
        perform(action);
      } catch (err) {
        if (err instanceof ListenerThrew || err.rule === undefined) throw err; // a bug, not a refusal
        throw new ListenerThrew(err.message);
      }
    }
  };
  const call = (index) => {
    if (index === listeners.length) return { kind: 'enter', messages: claimed }; // the default
    const listener = listeners[index];
    if (!matches(listener.when)) return call(index + 1); // not for this payload: pass through
    act(listener.before || []);
    if (listener.kind === 'throw') throw new ListenerThrew(listener.message);
    if (listener.kind === 'veto') return listener.decision; // the rest of the chain never runs
    const result = call(index + 1);
    act(listener.after || []);
    // DECIDE-9: side actions may depend on what the rest of the chain decided.
    act((result.kind === 'enter' ? listener.afterEnter : listener.afterReject) || []);
    return shape(result, listener.transform || { kind: 'keep' });
  };
  return call(0);
}

module.exports = { runWaterfall, ListenerThrew };
