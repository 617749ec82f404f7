// The bookkeeping of a run's conversation: the messages so far, the tokens they cost, the model's last words.
import { emptyUsage, promptTokens, type Usage } from '../model/usage.js';
import { compactionUsage } from '../model/compaction.js';
import type { ContentBlockParam, Message, MessageParam } from '../model/messages.js';
import type { ResponseBlock } from './events.js';
import type { FittedImage } from '../images/fit.js';
import { imageBlock } from './pictures.js';

export class Transcript {
  readonly messages: MessageParam[] = [];
  /** Added up over every request of the run. */
  readonly usage: Usage = emptyUsage();
  /** Prompt and output tokens of the last request: how full the context window is. */
  lastPrompt = 0;
  lastOutput = 0;
  /** The model's last text, its own summary of the work. */
  lastText = '';
  /** How many of `messages` earlier requests carried (or responses brought): the rest are new. */
  #sent = 0;

  /** The first message: its text (the task and what comes with it), then any pictures. */
  constructor(task: string, pictures: readonly ContentBlockParam[] = []) {
    this.messages.push({ role: 'user', content: [{ type: 'text', text: task }, ...pictures] });
  }

  /** Adds a response to the history and its usage to the totals. Returns its text ('' when it has none). */
  record(response: Message): string {
    this.addUsage(response);
    // The top-level counts leave a compaction out: they are the size of the conversation as it now stands.
    const sized = topLevelUsage(response);
    this.lastPrompt = promptTokens(sized);
    this.lastOutput = sized.output_tokens;
    // Empty text blocks would be refused when sent back, and an empty assistant turn is no turn at all.
    const content = response.content.filter((block) => block.type !== 'text' || block.text.trim() !== '');
    if (content.length > 0)
      this.messages.push({ role: 'assistant', content: content as ContentBlockParam[] });
    this.#sent = this.messages.length;
    const text = response.content
      .filter((block) => block.type === 'text')
      .map((block) => block.text)
      .join('\n')
      .trim();
    if (text) this.lastText = text;
    return text;
  }

  /** What the next request adds to the conversation the last one ended with; from then on, sent. */
  takeUnsent(): MessageParam[] {
    const added = this.messages.slice(this.#sent);
    this.#sent = this.messages.length;
    return added;
  }

  /** Adds a response's tokens to the totals, a compaction's (reported in `usage.iterations`) included. */
  addUsage(response: Message): void {
    addUsage(this.usage, usageOf(response));
  }

  /** After a clearing or compaction rewrote the history: what it holds now counts as sent, but the newest `unsent`. */
  markSent(unsent = 0): void {
    this.#sent = this.messages.length - unsent;
  }

  /** The next user turn. */
  reply(content: ContentBlockParam[]): void {
    this.messages.push({ role: 'user', content });
  }
}

/** A tool's answer: its text, then the pictures it showed (read_file of an image). */
export function toolResult(
  id: string,
  output: string,
  isError: boolean,
  images: readonly FittedImage[] = [],
): ContentBlockParam {
  // An empty tool_result text block would be refused; say so instead.
  const text = output || '(no output)';
  return {
    type: 'tool_result',
    tool_use_id: id,
    content: images.length > 0 ? [{ type: 'text', text }, ...images.map(imageBlock)] : text,
    ...(isError ? { is_error: true } : {}),
  };
}

/** A response block as observers get it: thinking keeps only its type (its text stays in the conversation). */
export function observedBlock(block: Message['content'][number]): ResponseBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
    default:
      return { type: block.type };
  }
}

export function hasText(message: Message): boolean {
  return message.content.some((block) => block.type === 'text' && block.text.trim() !== '');
}

/** A response's tokens: the reply's, and those of any compaction the API ran for it. */
export function usageOf(message: Message): Usage {
  const usage = topLevelUsage(message);
  addUsage(usage, compactionUsage(message));
  return usage;
}

function topLevelUsage(message: Message): Usage {
  const usage = message.usage;
  return {
    input_tokens: usage?.input_tokens ?? 0,
    output_tokens: usage?.output_tokens ?? 0,
    cache_creation_input_tokens: usage?.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: usage?.cache_read_input_tokens ?? 0,
  };
}

/** Adds `add` to `total`, and returns `total`. */
export function addUsage(total: Usage, add: Usage): Usage {
  total.input_tokens += add.input_tokens;
  total.output_tokens += add.output_tokens;
  total.cache_creation_input_tokens += add.cache_creation_input_tokens;
  total.cache_read_input_tokens += add.cache_read_input_tokens;
  return total;
}
