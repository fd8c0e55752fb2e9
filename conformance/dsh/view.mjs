// The model's view of the real log: what the real loop commits, restated in the vocabulary of the
// command language (spec/command-language.md), with every difference of vocabulary named here as
// data.  Nothing else is changed: a real event the model also writes passes through with its
// fields as the real writer wrote them, so a divergence in them shows.
//
// Why a view at all: the model leaves out the model call's own traffic (request headers, stream
// chunks, the text answer's message) and names the messages it writes after their calls; the real
// loop writes all of it with generated ids.  Dropping an event renumbers the ones after it, so
// every seq the view reports (an event's, a notification's nextSeq, a cited seq, the seq inside a
// crash-repair id) is the view's own.

// Event types the model never writes (the model call's own traffic, LOG-6): always dropped.
export const MODEL_CALL_TRAFFIC = ['request/header', 'request/context', 'assistant/chunk'];

// Each rule says why an event kept by the view reads differently from the real record.
export const VIEW_RULES = [
  ['drop-model-call-traffic', 'request/*, assistant/chunk: the model call\'s own traffic, outside the model (LOG-6)'],
  ['drop-text-answer', 'an assistant/message with no tool-call block: the model writes no message for a text answer'],
  ['drop-implicit-call', 'a `tool-calls` answer with no call announced: the real loop needs one call, whose three events the model does not write'],
  ['renumber-seqs', 'seqs count the kept events only; nextSeq, sourceEventSeqs and crash repair\'s id follow'],
  ['name-messages-after-calls', 'assistant-<first call id> and tool-result-<call id> instead of generated ids'],
  ['repair-time', 'crash repair\'s closers carry the time of the last kept event: the real one\'s last event may be dropped traffic (REPAIR-3 is judged on the real log by the recorder\'s runs)'],
  ['drop-route', 'an assistant message\'s source keeps its kind; provider and model are the environment\'s route'],
];

function toolCallIds(message) {
  return (message?.content ?? []).filter((b) => b?.type === 'tool-call').map((b) => b.id);
}

export class ModelView {
  constructor() {
    this.kept = []; // the view's events, in order
    this.viewSeqOf = new Map(); // raw seq -> view seq
    this.implicitCalls = new Set();
    this.lastRawSeq = -1;
  }

  get length() {
    return this.kept.length;
  }

  // The view of one raw event, or null when the view drops it.
  admit(raw) {
    this.lastRawSeq = Math.max(this.lastRawSeq, raw.seq);
    if (this.dropped(raw)) return null;
    const seq = this.kept.length;
    this.viewSeqOf.set(raw.seq, seq);
    const event = this.rewrite(raw, seq);
    this.kept.push(event);
    return event;
  }

  dropped(raw) {
    if (MODEL_CALL_TRAFFIC.includes(raw.type)) return true;
    if (raw.type === 'assistant/message') {
      const calls = toolCallIds(raw.data?.message);
      return calls.length === 0 || calls.every((id) => this.implicitCalls.has(id));
    }
    if (raw.type === 'tool/call') return this.implicitCalls.has(raw.data?.callId);
    if (raw.type === 'tool/result') return this.implicitCalls.has(raw.data?.message?.source?.callId);
    return false;
  }

  rewrite(raw, seq) {
    const event = { ...raw, seq };
    if (raw.sourceEventSeqs !== undefined) {
      const cited = raw.sourceEventSeqs.filter((s) => this.viewSeqOf.has(s)).map((s) => this.viewSeqOf.get(s));
      if (cited.length > 0 || raw.sourceEventSeqs.length === 0) event.sourceEventSeqs = cited;
      else delete event.sourceEventSeqs;
    }
    if (raw.type === 'assistant/message') {
      const message = raw.data.message;
      const { provider: _p, model: _m, ...source } = message.source ?? {};
      event.data = { ...raw.data, message: { ...message, id: `assistant-${toolCallIds(message)[0]}`, source } };
    }
    if (raw.type === 'tool/result') {
      const message = raw.data.message;
      const callId = message.source?.callId;
      const repaired = /^interrupted-tool-result-(.*)-(\d+)$/.exec(message.id);
      const id = repaired ? `interrupted-tool-result-${repaired[1]}-${seq}` : `tool-result-${callId}`;
      event.data = { ...raw.data, message: { ...message, id } };
    }
    return event;
  }

  // A live notification as the command language writes it, placed by the view's log length.
  note(note) {
    const { type } = note;
    const out = { type };
    if (type === 'agent/status') out.status = note.status;
    else if (type === 'agent/error') {
      out.turn = note.turn;
      out.step = note.step;
      out.error = errorFields(note.error);
    } else {
      out.message = note.message;
      if (type === 'agent/inbox/claimed') out.turn = note.turn;
    }
    out.nextSeq = this.kept.length;
    return out;
  }
}

// What an agent/error carries, as {message, code}: the message the turn/end will carry.
export function errorFields(error) {
  if (error && typeof error === 'object' && error.failure && typeof error.failure.message === 'string') {
    return { message: error.failure.message, code: error.failure.code ?? 'UNKNOWN' };
  }
  return { message: error instanceof Error ? error.message : String(error), code: 'UNKNOWN' };
}
