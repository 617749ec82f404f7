// The public shapes of the scripted model server: recorded requests, scripted replies and options.
import type { FederationServerOptions, TokenEndpoint } from './federation.js';

export type Json = Record<string, unknown>;

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary request fields
  body: any;
  /** Position among all `/v1/messages` requests, from 0. */
  index: number;
  receivedAt: number;
}

export interface TextContent {
  type: 'text';
  text: string;
}
export interface ToolUseContent {
  type: 'tool_use';
  id?: string;
  name: string;
  input: unknown;
}
export interface ThinkingContent {
  type: 'thinking';
  thinking: string;
  signature: string;
}
/** A tool search the model makes (./tool-search.ts): the server answers it from the request's deferred tools. */
export interface ToolSearchContent {
  type: 'tool_search';
  query: string;
}
export type ScriptedContent = TextContent | ToolUseContent | ThinkingContent | ToolSearchContent;

export type StopReason =
  | 'end_turn'
  | 'tool_use'
  | 'max_tokens'
  | 'stop_sequence'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded'
  | 'compaction';

export interface ScriptedUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export interface ScriptedResponse {
  content?: ScriptedContent[];
  stop_reason?: StopReason;
  /** Fields given here replace the computed ones. */
  usage?: Partial<ScriptedUsage>;
  /** Answer with this HTTP error instead (e.g. 429, 500, 529, 401), body in the API's error shape. */
  error?: { status: number; type: string; message: string; headers?: Record<string, string> };
  /** Destroy the socket without answering (a dropped connection). */
  drop?: boolean;
  /** For streaming requests: send an SSE `error` event after the first content block. */
  streamError?: { type: string; message: string };
  /** For streamed text and tool_use input: deliver it in pieces of this many characters (default: ~3 pieces). */
  chunkSize?: number;
}

export type ScriptStep =
  ScriptedResponse | ((request: RecordedRequest, server: ScriptedModelServer) => ScriptedResponse);

export interface ScriptedModelServer {
  /** e.g. http://127.0.0.1:PORT, to pass as `baseURL` to the SDK. */
  url: string;
  /** Every `/v1/messages` request, valid or not, in order. */
  requests: RecordedRequest[];
  /** Every 400 this server gave for a rule break (including an exhausted script). */
  violations: { index: number; message: string }[];
  /** The token endpoint, when the server plays keyless auth (`federation`). */
  tokens?: TokenEndpoint;
  /** Script steps not yet played. */
  remaining(): number;
  push(...steps: ScriptStep[]): void;
  close(): Promise<void>;
}

/**
 * Which model the server plays. `classic`: a model without preserved thinking (text comes back as text).
 * `sonnet-5-5`: Claude Sonnet 5.5 as its docs describe it (see thinking.ts).
 */
export type ModelMode = 'classic' | 'sonnet-5-5';
export const MODEL_MODES: readonly ModelMode[] = ['classic', 'sonnet-5-5'];
/** The model id a client names when it talks to the server in each mode. */
export const MODE_MODEL_ID: Record<ModelMode, string> = {
  classic: 'claude-sonnet-4-5',
  'sonnet-5-5': 'claude-sonnet-5-5',
};

export interface ModelServerOptions {
  /** When set, require `x-api-key: <key>` or `authorization: Bearer <key>`. */
  apiKey?: string;
  /** Default `classic`. */
  mode?: ModelMode;
  /** Maximum estimated input tokens (default 200,000 in `classic`, 1,000,000 in `sonnet-5-5`). */
  contextWindow?: number;
  /** Wait this long before answering each request. */
  latencyMs?: number;
  /**
   * The summary a compaction returns (on demand, or at the threshold), or null for one that came back
   * without a summary; default: a summary of a few thousand tokens (compaction.ts).
   */
  summary?: (request: RecordedRequest) => string | null;
  /** Play keyless auth: the token endpoint, and bearer tokens it minted instead of `apiKey`. */
  federation?: FederationServerOptions;
}
