'use strict';
// The durable session log: append-only, seq = index, lossless JSON only.
//
// Independent of the Python model: written from real-behaviour §2.1.  `append` refuses data that
// is not lossless JSON (negative zero, NaN, ±Infinity, undefined, functions), which is how the real
// system ends up refusing a splice whose start normalizes to -0 (NORM-5): the record never exists.

const BASE_TIME = 1700000000000;

class NotJson extends Error {
  constructor(path, what) {
    super(`session data is not lossless JSON at ${path}: ${what}`);
    this.rule = 'NORM-5';
  }
}

function checkLossless(value, path) {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new NotJson(path, String(value));
    if (Object.is(value, -0)) throw new NotJson(path, '-0');
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => checkLossless(v, `${path}[${i}]`));
    return;
  }
  if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) checkLossless(v, `${path}.${k}`);
    return;
  }
  throw new NotJson(path, typeof value);
}

// A deep copy that is also frozen, so nothing written can be changed behind the log's back.
function snapshot(value) {
  if (Array.isArray(value)) return Object.freeze(value.map(snapshot));
  if (value !== null && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = snapshot(v);
    return Object.freeze(out);
  }
  return value;
}

class Session {
  constructor(events = []) {
    this.events = events.map(snapshot);
    // The clock is deterministic so that runs are reproducible: one tick per real append.
    this.clock = this.events.reduce((t, e) => Math.max(t, e.time), BASE_TIME);
    this.onAppend = null;
  }

  get nextSeq() {
    return this.events.length;
  }

  // Append one event; `extra` carries envelope keys such as surfaceOp (LOG-1, LOG-7).
  append(type, data, extra = {}) {
    checkLossless(data, 'data');
    this.clock += 1;
    const event = snapshot({ type, seq: this.events.length, time: this.clock, data, ...extra });
    this.events.push(event);
    if (this.onAppend) this.onAppend(event);
    return event;
  }

  // Crash-repair closers carry the time of the last real event (REPAIR-3), not a new tick.
  appendAt(type, data, time, extra = {}) {
    checkLossless(data, 'data');
    const event = snapshot({ type, seq: this.events.length, time, data, ...extra });
    this.events.push(event);
    if (this.onAppend) this.onAppend(event);
    return event;
  }

  get lastTime() {
    return this.events.length ? this.events[this.events.length - 1].time : this.clock;
  }
}

module.exports = { Session, NotJson, snapshot, BASE_TIME };
