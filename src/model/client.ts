// The one module that talks to the model: the official SDK, streaming, its own retries, cache markers.
import Anthropic from '@anthropic-ai/sdk';
import {
  compactionFor,
  DEFAULT_MODEL,
  resolveModel,
  type CompactionKind,
  type Effort,
  type ModelInfo,
} from './catalogue.js';
import { BETA, compactionFields } from './compaction.js';
import { connect, platformModelId, SERVICE_NAMES, type MessagesClient, type Provider } from './providers.js';
import { ProviderFields } from './provider-fields.js';
import type { ContentBlockParam, Message, MessageParam, ToolParam } from './messages.js';
import { encodeRequestBody } from './request-body.js';
import { federationFailure, type FederationOptions } from './federation.js';
import { errorMessage } from '../text/error-sentence.js';

export { DEFAULT_MODEL };
/** The SDK retries 408/409/429/5xx/529 and dropped connections with backoff; a busy day needs more than 2. */
export const DEFAULT_MAX_RETRIES = 8;

export interface ModelOptions {
  provider?: Provider;
  apiKey?: string;
  /** Keyless auth to the Anthropic API (Workload Identity Federation) instead of `apiKey`. */
  federation?: FederationOptions;
  baseURL?: string;
  model?: string;
  maxRetries?: number;
  /** Sent as `output_config.effort` to a model that takes it (unless the provider refuses it). */
  effort?: Effort;
  /** Overrides the model table's list prices (USD per million tokens). */
  pricePerMtok?: { input: number; output: number };
  /** A sentence worth a warning in the log: an unknown model, an effort not sent, a recovery. */
  onNotice?: (message: string) => void;
  /** `auto` (the default): compaction on the server where the model and platform offer it; `off`: clearing. */
  compaction?: 'auto' | 'off';
}

export interface TurnRequest {
  system: string;
  tools: readonly ToolParam[];
  messages: readonly MessageParam[];
  maxTokens: number;
  signal?: AbortSignal;
  /** On-demand compaction: this request asks for the summary of `messages` instead of a reply. */
  summarize?: boolean;
  /** Threshold compaction: the input tokens at which the API compacts (at least 50,000, else not asked). */
  trigger?: number;
  /** The run's final answer: a JSON Schema the text must match (the API's structured outputs). */
  outputSchema?: Record<string, unknown>;
  /** The final answer's choice of tools (`none`: answer in text). */
  toolChoice?: Anthropic.ToolChoice;
}

export class Model {
  readonly #client: Promise<MessagesClient>;
  /** Until the first request: the client's authentication made ready (keyless auth's first exchange). */
  #ready: (() => Promise<void>) | undefined;
  readonly #ownBody: boolean;
  readonly #maxRetries: number;
  readonly id: string;
  /** Window, output limit, prices and thinking of this model, from the model table. */
  readonly info: ModelInfo;
  readonly #notice: (message: string) => void;
  /** Effort and the thinking block binding, as this provider takes them. */
  readonly #fields: ProviderFields;
  /** Who serves the model, for error sentences: 'the Anthropic API', 'Amazon Bedrock' or 'Vertex AI'. */
  readonly service: string;
  /** The compaction on the server this run uses, or undefined: the loop clears old tool results instead. */
  readonly compaction: CompactionKind | undefined;
  #systemBlocks: Anthropic.TextBlockParam[] | undefined;

  constructor(options: ModelOptions = {}) {
    this.#maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    const provider = options.provider ?? 'anthropic';
    const { client, ownBody, ready } = connect({ ...options, provider, maxRetries: this.#maxRetries });
    this.#client = client;
    this.#ready = ready;
    this.#ownBody = ownBody;
    this.id = platformModelId(provider, options.model || DEFAULT_MODEL);
    this.service = SERVICE_NAMES[provider];
    this.#notice = options.onNotice ?? (() => {});
    const { info, effort } = resolveModel(this.id, options, this.#notice);
    this.info = info;
    this.#fields = new ProviderFields(provider, effort);
    this.compaction = options.compaction === 'off' ? undefined : compactionFor(info, provider);
  }

  /**
   * One streamed request; resolves with the whole assistant message. The SDK retries failures before the
   * stream starts; a stream that breaks once started (an `overloaded_error` event, a cut connection) is
   * sent again here, with the same backoff, since only the finished message is ever used.
   */
  async send(request: TurnRequest): Promise<Message> {
    if (this.#ready) {
      // Asked for only when the first request needs it; a refusal ends the run here, without retries.
      const ready = this.#ready;
      this.#ready = undefined;
      await ready();
    }
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#stream(request);
      } catch (error) {
        if (this.#recover(error)) continue;
        if (attempt >= this.#maxRetries || !isMidStreamFailure(error)) throw error;
        await backoff(attempt, request.signal);
      }
    }
  }

  /**
   * A 400 that a changed request gets past: a thinking block bound to a different conversation, or an
   * optional field the provider does not know (see ProviderFields). Says what changed, in a notice.
   */
  #recover(error: unknown): boolean {
    if (!(error instanceof Anthropic.APIError) || error.status !== 400) return false;
    const notice = this.#fields.afterRefusal(apiErrorMessage(error));
    if (notice) this.#notice(notice);
    return notice !== undefined;
  }

  /** The same system blocks for the same prompt, so their encoding is reused. */
  #system(text: string): Anthropic.TextBlockParam[] {
    if (this.#systemBlocks?.[0]?.text !== text)
      this.#systemBlocks = [{ type: 'text', text, cache_control: { type: 'ephemeral' } }];
    return this.#systemBlocks;
  }

  async #stream(request: TurnRequest): Promise<Message> {
    const { fields, betas: fieldBetas } = this.#fields.next;
    const kind = this.compaction;
    const betas = kind ? [...fieldBetas, BETA[kind]] : fieldBetas;
    const params: Anthropic.MessageCreateParamsStreaming = {
      model: this.id,
      max_tokens: request.maxTokens,
      system: this.#system(request.system),
      tools: request.tools as Anthropic.ToolUnion[],
      messages: withCacheBreakpoints(this.#fields.messages(request.messages)),
      stream: true,
      ...fields,
      ...(kind ? compactionFields(kind, request) : {}),
      ...finalAnswerFields(request, fields.output_config),
    };
    // The SDK's stream helper reads `params`; the bytes sent are the same JSON, encoded a message at a time.
    // The platform SDKs rewrite the JSON they encoded themselves, so they get `params` alone.
    const beta = betas.length ? { 'anthropic-beta': betas.join(',') } : {};
    const options = this.#ownBody
      ? { body: encodeRequestBody(params), headers: { 'content-type': 'application/json', ...beta } }
      : { headers: beta };
    const client = await this.#client;
    // Only the beta stream keeps a compaction block's summary and `usage.iterations` in the final message.
    const stream = kind
      ? client.beta.messages.stream(params as Anthropic.Beta.MessageCreateParamsStreaming, {
          signal: request.signal,
          ...options,
        })
      : client.messages.stream(params, { signal: request.signal, ...options });
    return (await stream.finalMessage()) as Message;
  }
}

/** The fields only a final answer's request carries: the schema (beside any effort), the tool choice. */
function finalAnswerFields(
  request: TurnRequest,
  outputConfig: Anthropic.OutputConfig | undefined,
): Pick<Anthropic.MessageCreateParamsStreaming, 'output_config' | 'tool_choice'> {
  return {
    ...(request.outputSchema
      ? { output_config: { ...outputConfig, format: { type: 'json_schema', schema: request.outputSchema } } }
      : {}),
    ...(request.toolChoice ? { tool_choice: request.toolChoice } : {}),
  };
}

/**
 * Error events the API sends inside a stream that a later attempt can get past, and the exceptions Amazon
 * Bedrock ends a stream with instead (the Bedrock SDK turns them into error events of that type).
 */
const TRANSIENT_STREAM_ERRORS = new Set([
  'overloaded_error',
  'api_error',
  'rate_limit_error',
  'timeout_error',
  'serviceUnavailableException',
  'throttlingException',
  'internalServerException',
  'modelStreamErrorException',
  'modelTimeoutException',
]);

/**
 * A stream that failed after it started: an error event (an APIError without an HTTP status, which is not
 * a connection error) of a transient type, or the body cut off mid-way (the SDK wraps the network error).
 */
export function isMidStreamFailure(error: unknown): boolean {
  if (error instanceof Anthropic.APIUserAbortError || error instanceof Anthropic.APIConnectionError)
    return false;
  if (error instanceof Anthropic.APIError)
    return error.status === undefined && TRANSIENT_STREAM_ERRORS.has(String(error.type));
  return error instanceof Anthropic.AnthropicError && (error as { cause?: unknown }).cause instanceof Error;
}

/** The SDK's schedule: 0.5 s doubling up to 8 s, less up to a quarter of jitter; cut short by the signal. */
function backoff(attempt: number, signal: AbortSignal | undefined): Promise<void> {
  const ms = Math.min(500 * 2 ** attempt, 8000) * (1 - Math.random() * 0.25);
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Anthropic.APIUserAbortError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Anthropic.APIUserAbortError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Puts a moving cache breakpoint on the newest user turn and keeps one on the turn before it, so each
 * request reads the previous request's prefix from the cache. History itself is never changed: only
 * the copies sent carry the markers. With the system marker that makes 3 of the 4 allowed.
 */
export function withCacheBreakpoints(messages: readonly MessageParam[]): MessageParam[] {
  const marked = [...messages];
  let placed = 0;
  for (let index = marked.length - 1; index >= 0 && placed < 2; index--) {
    const message = marked[index];
    if (!message || message.role !== 'user') continue;
    const content: ContentBlockParam[] =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : [...message.content];
    const last = content.at(-1);
    if (!last || last.type === 'thinking' || last.type === 'redacted_thinking') continue;
    content[content.length - 1] = { ...last, cache_control: { type: 'ephemeral' } } as ContentBlockParam;
    marked[index] = { ...message, content };
    placed++;
  }
  return marked;
}

export type ModelFailure =
  | { kind: 'cancelled'; message: string }
  | { kind: 'context_window'; message: string }
  | { kind: 'auth'; message: string }
  | { kind: 'other'; message: string };

/** Turns an SDK error into one readable sentence, with no request ids or stack traces. */
export function classifyModelError(error: unknown, service = SERVICE_NAMES.anthropic): ModelFailure {
  if (error instanceof Anthropic.APIUserAbortError)
    return { kind: 'cancelled', message: 'the run was cancelled' };
  const federation = federationFailure(error);
  if (federation) return { kind: 'auth', message: federation.message };
  if (error instanceof Anthropic.APIError) {
    const detail = apiErrorMessage(error);
    if (error.status === 400 && /prompt is too long|context window|too many tokens/i.test(detail)) {
      return {
        kind: 'context_window',
        message: `the conversation no longer fits the model's context window (${detail})`,
      };
    }
    if (error.status === 401 || error.status === 403) {
      return {
        kind: 'auth',
        message: `${service} refused the credentials (${error.status}: ${detail})`,
      };
    }
    if (error instanceof Anthropic.APIConnectionError) {
      // The platform SDKs report credentials they could not get (from the AWS chain, or Google's) this way.
      if (/^Failed to (resolve|acquire) .*credentials/.test(detail)) {
        const cause = (error as { cause?: unknown }).cause;
        const why = cause instanceof Error && cause.message ? `: ${cause.message.split('\n')[0]}` : '';
        return {
          kind: 'auth',
          message: `no credentials for ${service} (${detail.replace(/\.$/, '')}${why})`,
        };
      }
      return { kind: 'other', message: `could not reach ${service} after retries (${detail})` };
    }
    if (error.status === undefined) {
      return {
        kind: 'other',
        message: `${service} stream failed (${error.type ?? 'error'}: ${detail})`,
      };
    }
    return { kind: 'other', message: `${service} answered ${error.status}: ${detail}` };
  }
  return { kind: 'other', message: errorMessage(error) };
}

/** The API's own words: `error.message` in its error body, or `message` in an AWS error body. */
function apiErrorMessage(error: InstanceType<typeof Anthropic.APIError>): string {
  const body = error.error as { error?: { message?: unknown }; message?: unknown } | undefined;
  const message = body?.error?.message ?? body?.message;
  return typeof message === 'string' && message ? message : error.message;
}
