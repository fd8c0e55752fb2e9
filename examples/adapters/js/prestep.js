'use strict';
// The agent/pre-step waterfall (DECIDE-2, DECIDE-3), run the way the real Cordis waterfall runs:
// outermost listener first, each acting on the agent *as it runs* (so an action that throws is the
// listener throwing right there), calling next() or not, and shaping what next() returned.
//
// Listener shapes (already decoded by the adapter):
//   {kind: 'wrap', transform, before: [action], after: [action]}
//   {kind: 'veto', decision, before: [action]}
//   {kind: 'throw', message, before: [action]}
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
function runWaterfall(claimed, listeners, perform) {
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
    act(listener.before || []);
    if (listener.kind === 'throw') throw new ListenerThrew(listener.message);
    if (listener.kind === 'veto') return listener.decision; // the rest of the chain never runs
    const result = call(index + 1);
    act(listener.after || []);
    return shape(result, listener.transform || { kind: 'keep' });
  };
  return call(0);
}

module.exports = { runWaterfall, ListenerThrew };
