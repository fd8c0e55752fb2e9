#!/usr/bin/env node
'use strict';
// `loopspec-adapter/2` over stdin/stdout (spec/adapter-protocol.md) for the JavaScript loop,
// profile `full` (the public inbox edits and the loop).
//
//   loopspec vectors run SUITE -- node examples/adapters/js/adapter.js
//   loopspec drive -- node examples/adapters/js/adapter.js

const readline = require('node:readline');
const { Agent, restarted } = require('./agent');
const { command: decodeCommand, BadRequest } = require('./commands');

const PROTOCOL = 'loopspec-adapter/2';
const IMPLEMENTATION = 'loopspec-js-example 0.2.0';
const PROFILE = 'full';

// One implementation instance plus what the current command emitted.
class Harness {
  constructor() {
    this.entries = [];
    // Each notification records where the log stood when it was emitted: `nextSeq`, the seq the
    // next durable event will get (protocol v2), so the interleaving is observable.
    this.agent = new Agent([], (entry) => this.entries.push(
      entry.live ? { live: { ...entry.live, nextSeq: this.agent.session.nextSeq } } : entry));
  }

  // Perform one public call on the agent; returns its value.  Listener actions come through here too
  // (they carry no `stop`).  Only a command that can pass a hop takes its `stop`: a clear and a
  // cancel pass the points inside themselves (loop-grain row 22), the other edits pass none, and a
  // restart leaves the agent idle.
  perform(c) {
    const a = this.agent;
    const stop = c.stop ?? null;
    switch (c.op) {
      case 'append': return a.inbox.append(c.target, c.message), null;
      case 'prepend': return a.inbox.prepend(c.target, c.message), null;
      case 'splice': return a.inbox.splice(c.target, c.start, c.deleteCount, c.inserted);
      case 'replace': return a.inbox.replace(c.id, c.message);
      case 'remove': return a.inbox.remove(c.id);
      case 'clear': return a.clear(stop), null;
      case 'send': return a.send(c.message, c.target, c.wake, stop), null;
      case 'cancel': return a.cancel(c.cause, c.keepInbox, stop), null;
      case 'decide': return a.decide(c.listeners, (x) => this.perform(x), stop), null;
      case 'step-result': return a.stepResult(c, stop), null;
      case 'turn-stopping': return a.turnStopping(c.actions, c.raises, (x) => this.perform(x), stop), null;
      case 'restart': this.agent = restarted(a); return null;
      case 'advance': return a.advance(stop), null;
      default: throw new Error(`unhandled op ${c.op}`);
    }
  }

  observe(c) {
    this.entries = [];
    try {
      const value = this.perform(c);
      return {
        ok: true,
        events: this.entries.filter((e) => e.durable).map((e) => e.durable),
        notifications: this.entries.filter((e) => e.live).map((e) => e.live),
        value: value === undefined ? null : value,
      };
    } catch (err) {
      if (err.rule === undefined) throw err;
      return { ok: false, code: err.rule, message: err.message };
    }
  }

  state() {
    const a = this.agent;
    return {
      inbox: { 'next-turn': a.inbox.nextTurn, 'next-step': a.inbox.nextStep },
      phase: a.reportedPhase,
      status: a.status,
      lastTurn: a.lastTurn,
    };
  }
}

function main() {
  let harness = new Harness();
  let greeted = false;
  const reply = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  rl.on('line', (line) => {
    let request;
    try {
      request = JSON.parse(line);
    } catch {
      return reply({ id: null, error: { kind: 'bad-request', message: 'not JSON' } });
    }
    const id = request !== null && typeof request === 'object' && Number.isInteger(request.id) ? request.id : null;
    if (id === null) return reply({ id: null, error: { kind: 'bad-request', message: 'no integer id' } });
    if (!greeted) {
      const hello = request.hello;
      if (!hello || hello.protocol !== PROTOCOL) {
        return reply({ id, error: { kind: 'protocol', message: `this adapter speaks ${PROTOCOL} only` } });
      }
      greeted = true;
      return reply({ id, hello: { protocol: PROTOCOL, implementation: IMPLEMENTATION, profile: PROFILE } });
    }
    try {
      if ('command' in request) return reply({ id, observation: harness.observe(decodeCommand(request.command)) });
      if ('state' in request) return reply({ id, state: harness.state() });
      if ('reset' in request) {
        harness = new Harness();
        return reply({ id, reset: {} });
      }
      if ('hello' in request) return reply({ id, error: { kind: 'protocol', message: 'hello was already answered' } });
      return reply({ id, error: { kind: 'bad-request', message: 'unknown request' } });
    } catch (err) {
      const kind = err instanceof BadRequest ? 'bad-request' : 'internal';
      process.stderr.write(`${err.stack || err}\n`);
      return reply({ id, error: { kind, message: err.message } });
    }
  });
}

if (require.main === module) main();

module.exports = { Harness };
