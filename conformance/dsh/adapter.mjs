// `loopspec-adapter/2` (spec/adapter-protocol.md) over the published dsh agent loop, the real
// implementation: `bash scripts/dsh-adapter.sh` installs the pinned packages and runs this file.
// Requests are served strictly in order, each after the previous one's loop has settled, so the
// caller may pipeline them.
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { RealCase, SCRATCH, Unsupported } from './harness.mjs';
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

class Server {
  constructor() {
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
    }
    return this.current;
  }

  // The current case ends: its teardown runs in the background; a failure of it is reported.
  endCase() {
    if (this.current === null) return;
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

  async answer(request) {
    const id = request !== null && typeof request === 'object' && Number.isInteger(request.id) ? request.id : null;
    if (id === null) return { id: null, error: { kind: 'bad-request', message: 'no integer id' } };
    if (!this.greeted) {
      if (request.hello?.protocol !== PROTOCOL) return { id, error: { kind: 'protocol', message: `this adapter speaks ${PROTOCOL} only` } };
      this.greeted = true;
      return { id, hello: { protocol: PROTOCOL, implementation: IMPLEMENTATION, profile: PROFILE, lacks: LACKS } };
    }
    try {
      if ('command' in request) {
        const command = decodeCommand(request.command);
        return { id, observation: await (await this.realCase()).observe(command) };
      }
      if ('state' in request) return { id, state: (await this.realCase()).state() };
      if ('reset' in request) {
        this.endCase();
        return { id, reset: {} };
      }
      if ('hello' in request) return { id, error: { kind: 'protocol', message: 'hello was already answered' } };
      return { id, error: { kind: 'bad-request', message: 'unknown request' } };
    } catch (error) {
      if (error instanceof BadRequest) return { id, error: { kind: 'bad-request', message: error.message } };
      if (error instanceof Unsupported) return { id, error: { kind: 'unsupported', message: error.message } };
      process.stderr.write(`${error?.stack ?? error}\n`);
      return { id, error: { kind: 'internal', message: String(error?.message ?? error) } };
    }
  }
}

async function main() {
  const server = new Server();
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    let request;
    try {
      request = JSON.parse(line);
    } catch {
      process.stdout.write(`${JSON.stringify({ id: null, error: { kind: 'bad-request', message: 'not JSON' } })}\n`);
      continue;
    }
    process.stdout.write(`${JSON.stringify(await server.answer(request))}\n`);
  }
  await Promise.race([server.close(), new Promise((resolve) => setTimeout(resolve, 1500))]);
  process.exit(0);
}

main();
