'use strict';
const { NotJson } = require('./session');
// The durable inbox: two lists, one write path (`mutate`), the spliced record as the only fact.
//
// Written from spec/02-normalization.md, spec/03-inbox-operations.md, spec/06-claim.md and
// real-behaviour §4: JavaScript numbers do the normalization natively (Math.trunc, -0 and all).

const NEXT_TURN = 'next-turn';
const NEXT_STEP = 'next-step';
const SPLICED = 'agent/inbox/spliced';
const NEGATIVE_ZERO = 'session event "agent/inbox/spliced" carries non-JSON-serializable data';

class Refused extends Error {
  constructor(rule, message) {
    super(message);
    this.rule = rule;
  }
}

function other(target) {
  return target === NEXT_TURN ? NEXT_STEP : NEXT_TURN;
}

// NORM-1..3: exactly Array.prototype.splice's coordinate rules.
function normalize(start, deleteCount, length) {
  let t = Math.trunc(start);
  if (Number.isNaN(t)) t = 0;
  const actualStart = t < 0 ? Math.max(length + t, 0) : Math.min(t, length);
  let d = Math.trunc(deleteCount);
  if (Number.isNaN(d)) d = 0;
  const actualDelete = Math.min(Math.max(d, 0), length - actualStart);
  return { start: actualStart, deleteCount: actualDelete };
}

class Inbox {
  // `session` is the durable log; `notify(n)` receives live notifications in emission order.
  constructor(session, notify) {
    this.session = session;
    this.notify = notify;
    this.lists = { [NEXT_TURN]: [], [NEXT_STEP]: [] };
  }

  get nextTurn() {
    return this.lists[NEXT_TURN];
  }

  get nextStep() {
    return this.lists[NEXT_STEP];
  }

  get hasPending() {
    return this.nextTurn.length > 0 || this.nextStep.length > 0;
  }

  // The one write path.  Returns the removed messages and what to notify after the append;
  // `publicEdit` is false only for the loop's claim.
  mutate(target, start, deleteCount, inserted, publicEdit) {
    const list = this.lists[target];
    const at = normalize(start, deleteCount, list.length);
    if (at.deleteCount === 0 && inserted.length === 0) return { removed: [], written: false }; // SPLICE-2
    const candidate = list.toSpliced(at.start, at.deleteCount, ...inserted);
    // SPLICE-3: walk in list order (next-turn first) over the candidate and the other list.
    const walk = target === NEXT_TURN ? [...candidate, ...this.nextStep] : [...this.nextTurn, ...candidate];
    const seen = new Set();
    for (const m of walk) {
      if (seen.has(m.id)) throw new Refused('SPLICE-3', `message "${m.id}" is already pending`);
      seen.add(m.id);
    }
    const removed = list.slice(at.start, at.start + at.deleteCount);
    const data = { target, start: at.start };
    if (at.deleteCount > 0) data.removedCount = at.deleteCount; // SPLICE-4
    data.inserted = inserted; // SPLICE-5
    if (publicEdit && at.deleteCount > 0) data.outcome = 'canceled'; // SPLICE-6
    try {
      this.session.append(SPLICED, data); // the session refuses a start of -0 (NORM-5): nothing changed yet
    } catch (err) {
      // The refusal's text becomes observable when a listener's action fails (turn/end {error}),
      // and the spec leaves it open, so this uses the reference model's wording.
      if (err instanceof NotJson && Object.is(at.start, -0)) throw new Refused('NORM-5', NEGATIVE_ZERO);
      throw err;
    }
    this.lists[target] = candidate;
    if (publicEdit) {
      // NOTIFY-2: after the append, discarded per removed message, then inserted per new one.
      for (const message of removed) this.notify({ type: 'agent/inbox/discarded', message });
      for (const message of inserted) this.notify({ type: 'agent/inbox/inserted', message });
    }
    return { removed, written: true };
  }

  splice(target, start, deleteCount, inserted = []) {
    return this.mutate(target, start, deleteCount, inserted, true).removed;
  }

  append(target, message) {
    return this.splice(target, this.lists[target].length, 0, [message]);
  }

  prepend(target, message) {
    return this.splice(target, 0, 0, [message]);
  }

  // SPLICE-7: next-turn is searched before next-step.
  locate(id) {
    for (const target of [NEXT_TURN, NEXT_STEP]) {
      const index = this.lists[target].findIndex((m) => m.id === id);
      if (index >= 0) return { target, index };
    }
    return null;
  }

  replace(id, message) {
    const where = this.locate(id);
    if (!where) return false;
    this.splice(where.target, where.index, 1, [message]);
    return true;
  }

  remove(id) {
    const where = this.locate(id);
    if (!where) return false;
    this.splice(where.target, where.index, 1, []);
    return true;
  }

  // SPLICE-8 / NOTIFY-4: two public splices, next-step first, each notifying before the next.
  // A generator, because the clear is not one indivisible act: right after a list's discarded
  // notifications (whose listeners act at once) it yields that list's name, and only when resumed
  // does it read the next list as it stands then (loop-grain row 22, decisions G23).  A list with
  // nothing to discard is a no-op (SPLICE-2) and yields nothing.  The agent says which of these
  // are points where a call can land (agent.js).
  *clearing() {
    for (const target of [NEXT_STEP, NEXT_TURN]) {
      if (this.splice(target, 0, this.lists[target].length).length > 0) yield target;
    }
  }

  // CLAIM-1/2/4: all of next-step, then (first boundary only) one next-turn message; pure
  // deletions; claimed notifications only after every record, in batch order.
  claim(target, turn) {
    const batch = this.mutate(NEXT_STEP, 0, this.nextStep.length, [], false).removed;
    if (target === NEXT_TURN) batch.push(...this.mutate(NEXT_TURN, 0, 1, [], false).removed);
    for (const message of batch) this.notify({ type: 'agent/inbox/claimed', message, turn });
    return batch;
  }

  // FOLD: rebuild the lists from a stored log (the restart path, REPAIR-4 / FOLD-5).
  static fold(events) {
    const lists = { [NEXT_TURN]: [], [NEXT_STEP]: [] };
    for (const e of events) {
      if (e.type !== SPLICED) continue;
      const { target, start, removedCount = 0, inserted } = e.data;
      lists[target] = lists[target].toSpliced(start, removedCount, ...inserted);
    }
    return lists;
  }
}

module.exports = { Inbox, Refused, normalize, NEXT_TURN, NEXT_STEP, SPLICED, other };
