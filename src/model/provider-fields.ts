// The optional request fields the providers spell or refuse differently: effort (`output_config.effort`) and
// the thinking block binding that drops blocks bound to another prefix, with its beta. Amazon Bedrock's
// user guide names the binding field `mismatch_behavior` where the Anthropic API (and Vertex AI) say
// `prefix_mismatch_behavior`. A provider that does not know a field answers 400 "<path>: Extra inputs are
// not permitted"; then the request goes again without it (effort) or under the other name (the binding),
// once each, with a notice, so an optional field never ends a run. A provider that takes no binding at all
// gets earlier turns without their thinking blocks (the docs' other way out: remove the blocks), so a bound
// block cannot be refused again. The platform SDKs move the beta header where their platform reads it
// (Bedrock: `anthropic_beta` in the body; Vertex: the header).
import type Anthropic from '@anthropic-ai/sdk';
import { withoutThinking } from './messages.js';
import type { MessageParam } from './messages.js';
import type { Effort } from './catalogue.js';
import { SERVICE_NAMES, type Provider } from './providers.js';

/** The beta that lets a request drop thinking blocks bound to another prefix instead of failing. */
export const BINDING_BETA = 'thinking-binding-controls-2026-08-01';

const BINDING_FIELDS = ['prefix_mismatch_behavior', 'mismatch_behavior'] as const;
type BindingField = (typeof BINDING_FIELDS)[number];

/** The name each provider's `thinking.block_binding` field is sent under first. */
const FIRST_BINDING_FIELD: Record<Provider, BindingField> = {
  anthropic: 'prefix_mismatch_behavior',
  bedrock: 'mismatch_behavior',
  vertex: 'prefix_mismatch_behavior',
};

const BOUND_ELSEWHERE = /bound to a different conversation/i;
const EXTRA_INPUT = /([\w.]+): Extra inputs are not permitted/;

type Fields = Pick<Anthropic.MessageCreateParamsStreaming, 'output_config' | 'thinking'>;

export class ProviderFields {
  readonly #service: string;
  #effort: Effort | undefined;
  #bindingField: BindingField;
  #renamed = false;
  #dropBoundBlocks = false;
  #stripThinking = false;
  /** The same objects while nothing changes, so the request encoder reuses their bytes. */
  #fields: { fields: Fields; betas: string[] } | undefined;

  constructor(provider: Provider, effort: Effort | undefined) {
    this.#service = SERVICE_NAMES[provider];
    this.#effort = effort;
    this.#bindingField = FIRST_BINDING_FIELD[provider];
  }

  /** The fields to add to the next request, and the betas they need. */
  get next(): { fields: Fields; betas: string[] } {
    this.#fields ??= {
      fields: {
        ...(this.#effort ? { output_config: { effort: this.#effort } } : {}),
        // Adaptive thinking is these models' default; the binding only adds what to do with a bound block.
        ...(this.#dropBoundBlocks && !this.#stripThinking
          ? {
              thinking: {
                type: 'adaptive',
                block_binding: { [this.#bindingField]: 'drop_block' },
              } as unknown as Anthropic.ThinkingConfigParam,
            }
          : {}),
      },
      betas: this.#dropBoundBlocks && !this.#stripThinking ? [BINDING_BETA] : [],
    };
    return this.#fields;
  }

  /** The history to send: as it is, or without thinking blocks once the provider took no binding. */
  messages(history: readonly MessageParam[]): readonly MessageParam[] {
    return this.#stripThinking ? withoutThinking(history) : history;
  }

  /**
   * What a 400 from the provider changes, as the notice to give; undefined when sending again cannot help.
   * A thinking block bound to a different conversation (the history changed under it): from now on every
   * request asks to drop such blocks, the documented way out. A field the provider does not know: effort is
   * left out, the binding goes under its other name, and if that is refused too (or the binding as a whole),
   * earlier turns go without thinking blocks. Each only once: a second refusal is a real failure.
   */
  afterRefusal(message: string): string | undefined {
    const notice = this.#adjust(message);
    if (notice) this.#fields = undefined;
    return notice;
  }

  #adjust(message: string): string | undefined {
    if (BOUND_ELSEWHERE.test(message)) {
      if (this.#dropBoundBlocks) return undefined;
      this.#dropBoundBlocks = true;
      return `${this.#service} refused a thinking block bound to an earlier form of the conversation; the rest of this run asks it to drop such blocks (block_binding ${this.#bindingField}: drop_block).`;
    }
    const path = EXTRA_INPUT.exec(message)?.[1];
    if (!path) return undefined;
    if (this.#effort && /^output_config(\.effort)?$/.test(path)) {
      const effort = this.#effort;
      this.#effort = undefined;
      return `${this.#service} does not take output_config.effort for this model (${message}); the rest of this run sends no effort, so the model uses its default instead of '${effort}'.`;
    }
    if (!this.#dropBoundBlocks || this.#stripThinking || !/block_binding(\.\w+)?$/.test(path))
      return undefined;
    if (!this.#renamed && path.endsWith(`block_binding.${this.#bindingField}`)) {
      const refused = this.#bindingField;
      this.#bindingField = BINDING_FIELDS.find((field) => field !== refused)!;
      this.#renamed = true;
      return `${this.#service} does not know thinking.block_binding.${refused} (${message}); the rest of this run sends it as ${this.#bindingField}.`;
    }
    this.#stripThinking = true;
    return `${this.#service} takes no thinking.block_binding (${message}); the rest of this run sends earlier turns without their thinking blocks (the model no longer sees its earlier reasoning), so none can be refused.`;
  }
}
