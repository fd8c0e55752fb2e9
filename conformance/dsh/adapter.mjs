// `loopspec-adapter/2` (spec/adapter-protocol.md) over the published dsh agent loop, the real
// implementation: `bash scripts/dsh-adapter.sh` installs the pinned packages and runs this file.
// Requests are served strictly in order, each after the previous one's loop has settled or stopped
// at a hop, so the caller may pipeline them.
//
// A command with `stop` (a hop, spec/loop-grain.md) is answered where the real loop passes that hop,
// from inside the loop's own segment (a notification's listener, the decided `.then`, a queued
// microtask: harness.mjs `reach`; for `clearing` and `canceling`, the discarded listener inside the
// clear or cancel that stops there), and the requests after it are read and served right there,
// synchronously, with the loop held: public calls are synchronous, and `advance` lets the loop go
// on.  So requests are read from fd 0 by this file's own line reader, synchronously inside a hop
// and asynchronously between commands (so a case's teardown goes on while the caller thinks).
import { createRequire } from 'node:module';
import { mkdtempSync, read, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { RealCase, Refused, SCRATCH, Unsupported } from './harness.mjs';
import { DshContext } from './process.mjs';

// No answer carries a stack (the real records keep an error's message and code; no package reads a
// stack but to rewrite it), yet cordis captures two for every call through a service proxy, and
// every refusal and missing-file check makes one: a fifth of the adapter's time at V8's ten
// frames.  One frame still names where an internal error was thrown.
Error.stackTraceLimit = 1;

const require = createRequire(import.meta.url);
// The command language's strict decoder, shared with the repository's JavaScript example adapter.
const { command: decodeCommand, BadRequest } = require('../../examples/adapters/js/commands.js');
const { version } = require('@deepseek-ai/dsh-agent-loop/package.json');

const PROTOCOL = 'loopspec-adapter/2';
const IMPLEMENTATION = `dsh-agent-loop ${version} (npm, real)`;
const PROFILE = 'full';
// The real model call answers a step once (loopspec/vectors/capabilities.py): drive draws within that.
const LACKS = ['one-answer-per-step', 'restart-before-first-event'];
// The environment's answers: at a hop the loop waits on none of them.
const ANSWERS = new Set(['decide', 'step-result', 'turn-stopping']);

// A blocking wait of a few milliseconds, for a read or write that would block on a non-blocking fd.
const pause = new Int32Array(new SharedArrayBuffer(4));
const wouldBlock = (error) => error?.code === 'EAGAIN' || error?.code === 'EWOULDBLOCK';

// The request lines on fd 0, read with a buffer of our own (process.stdin is never touched: its
// stream would read ahead where a synchronous read inside a hop could not see it).  `next` reads
// asynchronously, `nextNow` synchronously; both give null at the end of the input.  Only one read
// is ever in flight: a command is served once its line is complete, and a hop reads within it.
class Requests {
  constructor(fd) {
    this.fd = fd;
    this.chunk = Buffer.alloc(1 << 16);
    this.decoder = new StringDecoder('utf8');
    this.text = '';
    this.ended = false;
  }

  // The next complete line in the buffer; at the end of the input, the unterminated rest.
  take() {
    const at = this.text.indexOf('\n');
    if (at < 0 && !this.ended) return undefined;
    if (at < 0) {
      const rest = this.text;
      this.text = '';
      return rest === '' ? null : rest.replace(/\r$/, '');
    }
    const line = this.text.slice(0, at);
    this.text = this.text.slice(at + 1);
    return line.replace(/\r$/, '');
  }

  took(bytes) {
    if (bytes === 0) {
      this.ended = true;
      this.text += this.decoder.end();
    } else this.text += this.decoder.write(this.chunk.subarray(0, bytes));
  }

  nextNow() {
    for (;;) {
      const line = this.take();
      if (line !== undefined) return line;
      try {
        this.took(readSync(this.fd, this.chunk, 0, this.chunk.length, null));
      } catch (error) {
        if (!wouldBlock(error)) throw error;
        Atomics.wait(pause, 0, 0, 5);
      }
    }
  }

  async next() {
    for (;;) {
      const line = this.take();
      if (line !== undefined) return line;
      const bytes = await new Promise((resolve, reject) => {
        read(this.fd, this.chunk, 0, this.chunk.length, null, (error, n) => {
          if (error && wouldBlock(error)) setTimeout(() => resolve(-1), 5);
          else if (error) reject(error);
          else resolve(n);
        });
      });
      if (bytes >= 0) this.took(bytes);
    }
  }
}

// One response line on fd 1, written synchronously: inside a hop the adapter blocks reading the next
// request, so the caller must already have the answer it waits for.
function respond(response) {
  const bytes = Buffer.from(`${JSON.stringify(response)}\n`);
  let done = 0;
  while (done < bytes.length) {
    try {
      done += writeSync(1, bytes, done, bytes.length - done);
    } catch (error) {
      if (!wouldBlock(error)) throw error;
      Atomics.wait(pause, 0, 0, 5);
    }
  }
}

// A request's id, or null when it has none (or is not an object).
const idOf = (request) => (request !== null && typeof request === 'object' && Number.isInteger(request.id) ? request.id : null);

class Server {
  constructor(requests) {
    this.requests = requests;
    this.owed = null; // the command whose observation is not written yet: {id, value}
    this.greeted = false;
    this.cases = 0;
    this.current = null;
    this.previous = null; // the last case, torn down in the background
    this.closing = new Set(); // the teardowns not yet settled
    this.host = null; // the context every case's first process runs in, wired on first use
  }

  // A case starts once the previous one's agents are disposed: a host serves one case at a time.
  async realCase() {
    if (this.current === null) {
      await this.previous?.disposed;
      this.host ??= await DshContext.wire(mkdtempSync(join(SCRATCH, 'loopspec-dsh-')));
      this.current = await RealCase.start(String(++this.cases), null, this.host);
      const realCase = this.current;
      realCase.holder = (hop) => this.hold(realCase, hop);
    }
    return this.current;
  }

  // The current case ends: its teardown runs in the background; a failure of it is reported.  Its
  // loop is held at no hop from now on (the teardown passes some: its cancel ends the turn).
  endCase() {
    if (this.current === null) return;
    this.current.holder = null;
    this.current.stop = null;
    const label = this.cases;
    const closing = this.current.close().catch((error) => {
      process.stderr.write(`tearing down case ${label}: ${error?.stack ?? error}\n`);
    });
    this.closing.add(closing);
    closing.then(() => this.closing.delete(closing));
    this.previous = this.current;
    this.current = null;
  }

  // Every case torn down, then the host; the promise settles when that is done.
  close() {
    this.endCase();
    return Promise.allSettled(this.closing).then(() => this.host?.dispose()).then(() => {
      if (this.host !== null) rmSync(this.host.root, { recursive: true, force: true, maxRetries: 3 });
    });
  }

  // The request in `line`, or null once a response says why there is none.
  parse(line) {
    let request;
    try {
      request = JSON.parse(line);
    } catch {
      respond({ id: null, error: { kind: 'bad-request', message: 'not JSON' } });
      return null;
    }
    if (idOf(request) === null) {
      respond({ id: null, error: { kind: 'bad-request', message: 'no integer id' } });
      return null;
    }
    return request;
  }

  // One request between commands: a command is answered once the loop has settled, or where it
  // stopped at a hop (then the requests after it were served there, and the answer owed when the
  // loop settles is the last of them that let the loop go on).
  async serve(line) {
    const request = this.parse(line);
    if (request === null) return;
    const { id } = request;
    try {
      if (!this.greeted || !('command' in request || 'state' in request)) return respond(this.answerNow(request, null));
      const realCase = await this.realCase();
      if ('state' in request) return respond({ id, state: realCase.state() });
      const command = decodeCommand(request.command);
      if (command.op === 'advance') return respond(this.refusal(id, realCase.cannotAdvance()));
      await this.run(id, command, realCase);
    } catch (error) {
      respond(this.failure(id, error));
    }
  }

  async run(id, command, realCase) {
    this.owe(id, command, realCase);
    try {
      const value = await realCase.perform(command);
      if (this.owed?.id === id) this.owed.value = value;
      await realCase.settle();
      if (realCase.crash !== null) await realCase.restart(); // a crash at a hop: the next process
      this.pay(realCase);
    } catch (error) {
      this.failOwed(realCase, error);
    } finally {
      if (realCase.abandoned) this.endCase();
    }
  }

  // A command begins: its observation is owed until the loop settles or stops at its hop.
  owe(id, command, realCase) {
    this.owed = { id, value: null };
    realCase.begin(command);
  }

  // The owed command's observation: what the loop did since it began (its value: what its call
  // returned, none yet when the loop stopped inside the call).
  pay(realCase) {
    if (this.owed === null) return;
    const { id, value } = this.owed;
    this.forgive(realCase);
    respond({ id, observation: realCase.observation(value) });
  }

  // A command that threw (a refusal the model names, an unsupported answer, an error): the request
  // owed now gets it, which is the command itself unless it was answered where it stopped at a hop
  // (then it is the one the caller is waiting for); with nothing owed it is only reported.
  failOwed(realCase, error) {
    const { owed } = this;
    this.forgive(realCase);
    if (owed !== null) respond(this.failure(owed.id, error));
    else process.stderr.write(`after its answer: ${error?.stack ?? error}\n`);
  }

  // The owed command is done with (answered, refused or failed): its stop with it, or a later
  // passing of that hop (a teardown's, say) would hold the loop for a command long answered.
  forgive(realCase) {
    this.owed = null;
    realCase.stop = null;
  }

  // The loop is held at `hop` (harness.mjs `reach`): the command that stopped here is answered, then
  // the requests after it are served here, synchronously, until one lets the loop go on.
  hold(realCase, hop) {
    this.pay(realCase);
    while (!realCase.hopLeft) {
      const line = this.requests.nextNow();
      if (line === null) return realCase.abandon(); // the input ended: let the loop go
      const request = this.parse(line);
      if (request === null) continue;
      try {
        if (this.serveHeld(request, realCase)) return;
      } catch (error) {
        // Nothing is owed before a request's command begins (a bad request, say): it is this one's.
        if (this.owed !== null) this.failOwed(realCase, error);
        else respond(this.failure(request.id, error));
      }
    }
  }

  // One request where the loop is held at a hop; true when the loop goes on from here.  `advance`
  // owes its answer to the loop going on (to its next await point, or its own `stop`), so does a
  // `restart` (the next process starts once the loop has let go), and so does a call that left the
  // hop (a waking send at `waking`: the driver started); any other call is answered here.  At
  // `clearing` and `canceling` (inside a clear or a cancel) every call is answered here, whole,
  // whatever its `stop` (harness.mjs `begin`), even one that starts the driver: the loop is still
  // inside the call's discarded listener, and only `advance` (or a restart) runs the call's rest.
  serveHeld(request, realCase) {
    const { id } = request;
    if (!('command' in request)) {
      if ('reset' in request) realCase.abandon();
      respond(this.answerNow(request, realCase));
      return realCase.hopLeft;
    }
    const command = decodeCommand(request.command);
    if (ANSWERS.has(command.op)) {
      respond(this.failure(id, realCase.answerRefusal(command)));
      return false;
    }
    this.owe(id, command, realCase);
    if (command.op === 'advance') return true;
    if (command.op === 'restart') {
      realCase.crashAtHop();
      return true;
    }
    let value;
    try {
      value = realCase.performNow(command);
    } catch (error) {
      this.failOwed(realCase, error);
      return realCase.hopLeft;
    }
    if (this.owed?.id === id) this.owed.value = value;
    if (realCase.hopLeft) return true;
    this.pay(realCase);
    return false;
  }

  // The requests answered at once wherever the loop stands: the handshake, state (at a hop, given
  // `realCase`), reset, and the protocol's errors.
  answerNow(request, realCase) {
    const { id } = request;
    if (!this.greeted) {
      if (request.hello?.protocol !== PROTOCOL) return { id, error: { kind: 'protocol', message: `this adapter speaks ${PROTOCOL} only` } };
      this.greeted = true;
      return { id, hello: { protocol: PROTOCOL, implementation: IMPLEMENTATION, profile: PROFILE, lacks: LACKS } };
    }
    if ('state' in request && realCase !== null) return { id, state: realCase.state() };
    if ('reset' in request) {
      if (realCase === null) this.endCase();
      return { id, reset: {} };
    }
    if ('hello' in request) return { id, error: { kind: 'protocol', message: 'hello was already answered' } };
    return { id, error: { kind: 'bad-request', message: 'unknown request' } };
  }

  refusal(id, refused) {
    return { id, observation: { ok: false, code: refused.code, message: refused.message } };
  }

  // The response to a request that did not go through: a refusal the model names is an observation.
  failure(id, error) {
    if (error instanceof Refused) return this.refusal(id, error);
    if (error instanceof BadRequest) return { id, error: { kind: 'bad-request', message: error.message } };
    if (error instanceof Unsupported) return { id, error: { kind: 'unsupported', message: error.message } };
    process.stderr.write(`${error?.stack ?? error}\n`);
    return { id, error: { kind: 'internal', message: String(error?.message ?? error) } };
  }
}

async function main() {
  const requests = new Requests(0);
  const server = new Server(requests);
  // Node ends a process whose event loop has nothing left to wait on, quietly, with status 0; no
  // read is in flight while a command is served, so a loop that never settled would end the adapter
  // as if the input had ended.  This timer keeps it waiting, for the caller's timeout to report.
  const alive = setInterval(() => {}, 1 << 30);
  for (let line = await requests.next(); line !== null; line = await requests.next()) await server.serve(line);
  await Promise.race([server.close(), new Promise((resolve) => setTimeout(resolve, 1500))]);
  clearInterval(alive);
  process.exit(0);
}

main();
