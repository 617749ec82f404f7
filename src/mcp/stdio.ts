// The MCP client's transport to a local server: JSON-RPC messages, one per line, over the stdio of a process
// the sandbox started (sandbox/commands/run-command.ts). The SDK's own StdioClientTransport spawns its process itself,
// outside the sandbox, so this one takes a process already started; it frames with the SDK's
// serializeMessage and deserializeMessage. Lines are gathered a chunk at a time (the SDK's ReadBuffer
// copies its whole buffer on every chunk, which a server printing tens of megabytes on one line makes
// quadratic), and a line past MAX_MESSAGE_BYTES ends the connection instead of the action's memory.
import { once } from 'node:events';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Service } from '../sandbox/commands/run-command.js';

/** The longest message a server may send: room for a few scaled screenshots, not for a runaway. */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** Lines that are not JSON-RPC, reported one by one up to this many; the rest are only counted. */
const REPORTED_NOISE = 5;

export class ServiceTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  readonly #service: Service;
  #chunks: Buffer[] = [];
  #pending = 0;
  #noise = 0;
  #closed = false;
  /** A line grew past the limit: the server is being stopped, and nothing more it sends is read. */
  #overflowed = false;

  constructor(service: Service) {
    this.#service = service;
  }

  async start(): Promise<void> {
    this.#service.stdout.on('data', (chunk: Buffer) => this.#read(chunk));
    void this.#service.exited.then(() => this.#end());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed || !this.#service.running) throw new Error('the server is not running');
    const stdin = this.#service.stdin;
    // A full pipe waits for the server to read, or to be gone.
    if (!stdin.write(serializeMessage(message)))
      await Promise.race([once(stdin, 'drain').catch(() => undefined), this.#service.exited]);
  }

  /** Stops the server (its stdin closed, then killed), and says the connection is closed. */
  async close(): Promise<void> {
    await this.#service.stop();
    this.#end();
  }

  #end(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#chunks = [];
    this.onclose?.();
  }

  #read(chunk: Buffer): void {
    if (this.#closed || this.#overflowed) return;
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      this.#chunks.push(chunk.subarray(start, newline));
      const line = Buffer.concat(this.#chunks).toString('utf8').replace(/\r$/, '');
      this.#chunks = [];
      this.#pending = 0;
      start = newline + 1;
      this.#deliver(line);
      if (this.#closed) return;
    }
    const rest = chunk.subarray(start);
    this.#pending += rest.length;
    if (this.#pending > MAX_MESSAGE_BYTES) {
      this.#overflowed = true;
      this.onerror?.(
        new Error(`the server sent a message over ${MAX_MESSAGE_BYTES / 1024 / 1024} MB: it is stopped`),
      );
      this.#chunks = [];
      void this.close();
      return;
    }
    if (rest.length > 0) this.#chunks.push(rest);
  }

  #deliver(line: string): void {
    if (line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch {
      // A server that prints its logs on stdout: noted, never fatal, never a flood.
      if (++this.#noise <= REPORTED_NOISE)
        this.onerror?.(new Error(`the server printed a line that is not JSON-RPC on stdout`));
      return;
    }
    this.onmessage?.(message);
  }
}
