'use strict';
// Decoding the command language (spec/command-language.md) into plain values, strictly:
// objects are closed, and anything malformed is a BadRequest rather than a silent default.

class BadRequest extends Error {}

const TARGETS = ['next-turn', 'next-step'];
const JS_NUMBER_STRINGS = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity, '-0': -0 };
const STEP_KINDS = ['stop', 'max-tokens', 'tool-calls', 'tool-call', 'tool-start', 'tool-result', 'request-error', 'fail'];

function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function fields(obj, where, required, optional = []) {
  if (!isObject(obj)) throw new BadRequest(`${where} must be an object`);
  for (const key of Object.keys(obj)) {
    if (!required.includes(key) && !optional.includes(key)) throw new BadRequest(`${where}: unknown key '${key}'`);
  }
  for (const key of required) {
    if (!(key in obj)) throw new BadRequest(`${where}: missing '${key}'`);
  }
  return obj;
}

function message(v, where) {
  if (!isObject(v)) throw new BadRequest(`${where} must be a message object`);
  if (typeof v.id !== 'string') throw new BadRequest(`${where}: id must be a string`);
  if (v.role !== 'user') throw new BadRequest(`${where}: role must be "user"`);
  if (!Array.isArray(v.content)) throw new BadRequest(`${where}: content must be an array`);
  if (!isObject(v.source)) throw new BadRequest(`${where}: source must be an object`);
  return v;
}

function messages(v, where) {
  if (!Array.isArray(v)) throw new BadRequest(`${where} must be an array`);
  return v.map((m, i) => message(m, `${where}[${i}]`));
}

function target(v, where) {
  if (!TARGETS.includes(v)) throw new BadRequest(`${where}: unknown target ${JSON.stringify(v)}`);
  return v;
}

function jsNumber(v, where) {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && Object.hasOwn(JS_NUMBER_STRINGS, v)) return JS_NUMBER_STRINGS[v];
  throw new BadRequest(`${where}: not a js-number ${JSON.stringify(v)}`);
}

function bool(v, where) {
  if (typeof v !== 'boolean') throw new BadRequest(`${where} must be a boolean`);
  return v;
}

function str(v, where) {
  if (typeof v !== 'string') throw new BadRequest(`${where} must be a string`);
  return v;
}

function array(v, where, item) {
  if (!Array.isArray(v)) throw new BadRequest(`${where} must be an array`);
  return v.map((x, i) => item(x, `${where}[${i}]`));
}

const ACTION_OPS = {
  append: (c) => (fields(c, 'append', ['op', 'target', 'message']),
    { op: 'append', target: target(c.target, 'append'), message: message(c.message, 'append.message') }),
  prepend: (c) => (fields(c, 'prepend', ['op', 'target', 'message']),
    { op: 'prepend', target: target(c.target, 'prepend'), message: message(c.message, 'prepend.message') }),
  splice: (c) => (fields(c, 'splice', ['op', 'target', 'start', 'deleteCount'], ['inserted']), {
    op: 'splice',
    target: target(c.target, 'splice'),
    start: jsNumber(c.start, 'splice.start'),
    deleteCount: jsNumber(c.deleteCount, 'splice.deleteCount'),
    inserted: messages(c.inserted ?? [], 'splice.inserted'),
  }),
  replace: (c) => (fields(c, 'replace', ['op', 'id', 'message']),
    { op: 'replace', id: str(c.id, 'replace.id'), message: message(c.message, 'replace.message') }),
  remove: (c) => (fields(c, 'remove', ['op', 'id']), { op: 'remove', id: str(c.id, 'remove.id') }),
  clear: (c) => (fields(c, 'clear', ['op']), { op: 'clear' }),
  send: (c) => (fields(c, 'send', ['op', 'message', 'target', 'wake']), {
    op: 'send', message: message(c.message, 'send.message'), target: target(c.target, 'send'), wake: bool(c.wake, 'send.wake'),
  }),
  followup: (c) => (fields(c, 'followup', ['op', 'message']),
    { op: 'send', message: message(c.message, 'followup.message'), target: 'next-turn', wake: true }),
  steer: (c) => (fields(c, 'steer', ['op', 'message']),
    { op: 'send', message: message(c.message, 'steer.message'), target: 'next-step', wake: true }),
  inject: (c) => (fields(c, 'inject', ['op', 'message']),
    { op: 'send', message: message(c.message, 'inject.message'), target: 'next-step', wake: false }),
  cancel: (c) => (fields(c, 'cancel', ['op'], ['cause', 'keepInbox']), {
    op: 'cancel',
    cause: 'cause' in c ? c.cause : { kind: 'user' },
    keepInbox: bool(c.keepInbox ?? false, 'cancel.keepInbox'),
  }),
};

function action(c, where = 'action') {
  if (!isObject(c) || !Object.hasOwn(ACTION_OPS, c.op)) throw new BadRequest(`${where}: not an action op ${JSON.stringify(c && c.op)}`);
  return ACTION_OPS[c.op](c);
}

function decision(d, where) {
  if (isObject(d) && d.kind === 'reject') return (fields(d, where, ['kind']), { kind: 'reject' });
  if (isObject(d) && d.kind === 'enter') {
    fields(d, where, ['kind', 'messages']);
    return { kind: 'enter', messages: messages(d.messages, `${where}.messages`) };
  }
  throw new BadRequest(`${where}: not a decision`);
}

function transform(t, where) {
  if (!isObject(t)) throw new BadRequest(`${where}: not a transform`);
  switch (t.kind) {
    case 'keep': return (fields(t, where, ['kind']), { kind: 'keep' });
    case 'replace': return (fields(t, where, ['kind', 'decision']), { kind: 'replace', decision: decision(t.decision, `${where}.decision`) });
    case 'drop': return (fields(t, where, ['kind', 'ids']), { kind: 'drop', ids: array(t.ids, `${where}.ids`, str) });
    case 'add': return (fields(t, where, ['kind', 'messages']), { kind: 'add', messages: messages(t.messages, `${where}.messages`) });
    default: throw new BadRequest(`${where}: unknown transform kind ${JSON.stringify(t.kind)}`);
  }
}

// when: the pre-step payloads a listener acts on (DECIDE-1); a missing field matches any value.
function when(w, where) {
  if (!isObject(w)) throw new BadRequest(`${where}: not an object`);
  fields(w, where, [], ['turn', 'step']);
  for (const key of ['turn', 'step']) {
    if (w[key] !== undefined && !(Number.isInteger(w[key]) && w[key] >= 1)) {
      throw new BadRequest(`${where}.${key}: a positive integer`);
    }
  }
  return { turn: w.turn ?? null, step: w.step ?? null };
}

function listener(l, where) {
  if (!isObject(l)) throw new BadRequest(`${where}: not a listener`);
  const before = array(l.before ?? [], `${where}.before`, action);
  const w = l.when === undefined ? { turn: null, step: null } : when(l.when, `${where}.when`);
  switch (l.kind) {
    case 'wrap':
      fields(l, where, ['kind'], ['transform', 'before', 'after', 'afterEnter', 'afterReject', 'when']);
      return {
        kind: 'wrap', transform: transform(l.transform ?? { kind: 'keep' }, `${where}.transform`), before,
        after: array(l.after ?? [], `${where}.after`, action),
        afterEnter: array(l.afterEnter ?? [], `${where}.afterEnter`, action),
        afterReject: array(l.afterReject ?? [], `${where}.afterReject`, action),
        when: w,
      };
    case 'veto':
      fields(l, where, ['kind', 'decision'], ['before', 'when']);
      return { kind: 'veto', decision: decision(l.decision, `${where}.decision`), before, when: w };
    case 'throw':
      fields(l, where, ['kind', 'message'], ['before', 'when']);
      return { kind: 'throw', message: str(l.message, `${where}.message`), before, when: w };
    default:
      throw new BadRequest(`${where}: unknown listener kind ${JSON.stringify(l.kind)}`);
  }
}

// The hops (spec/loop-grain.md): where a command with `stop` leaves the loop, and where `advance`
// goes on from.  The last two lie inside a clear or a cancel rather than in the loop (row 22).
const HOPS = ['decided', 'decision-returned', 'failing', 'chaining', 'ending', 'starting', 'waking',
  'prompting', 'replaying', 'clearing', 'canceling'];

function hop(value, where) {
  if (!HOPS.includes(value)) throw new BadRequest(`${where}: one of the hops ${HOPS.join(', ')}, got ${JSON.stringify(value)}`);
  return value;
}

// A command as the language writes it: `stop` (a hop) may go with any loop command, never with an
// action inside a listener.
function command(c) {
  if (!isObject(c)) throw new BadRequest('a command must be an object');
  if (c.op === 'advance') {
    fields(c, 'advance', ['op'], ['stop']);
    return { op: 'advance', stop: c.stop === undefined ? null : hop(c.stop, 'advance.stop') };
  }
  if (!Object.hasOwn(c, 'stop')) return { ...bareCommand(c), stop: null };
  const { stop, ...rest } = c;
  return { ...bareCommand(rest), stop: hop(stop, `${c.op}.stop`) };
}

function bareCommand(c) {
  if (Object.hasOwn(ACTION_OPS, c.op)) return action(c, 'command');
  switch (c.op) {
    case 'decide':
      fields(c, 'decide', ['op'], ['listeners']);
      return { op: 'decide', listeners: array(c.listeners ?? [], 'decide.listeners', listener) };
    case 'step-result': {
      fields(c, 'step-result', ['op', 'kind'], ['context', 'conclude', 'retry', 'error', 'code', 'started']);
      if (!STEP_KINDS.includes(c.kind)) throw new BadRequest(`step-result: unknown kind ${JSON.stringify(c.kind)}`);
      return {
        op: 'step-result',
        kind: c.kind,
        context: messages(c.context ?? [], 'step-result.context'),
        conclude: bool(c.conclude ?? false, 'step-result.conclude'),
        retry: bool(c.retry ?? false, 'step-result.retry'),
        error: str(c.error ?? 'step failed', 'step-result.error'),
        code: str(c.code ?? 'UNKNOWN', 'step-result.code'),
        started: bool(c.started ?? true, 'step-result.started'),
      };
    }
    case 'turn-stopping': {
      fields(c, 'turn-stopping', ['op'], ['actions', 'raises']);
      const raises = c.raises ?? null;
      if (raises !== null) str(raises, 'turn-stopping.raises');
      return { op: 'turn-stopping', actions: array(c.actions ?? [], 'turn-stopping.actions', action), raises };
    }
    case 'restart':
      fields(c, 'restart', ['op']);
      return { op: 'restart' };
    default:
      throw new BadRequest(`unknown op ${JSON.stringify(c.op)}`);
  }
}

module.exports = { command, BadRequest };
