// The run's final answer, when the maintainer asked for one (`output_schema`): after the working turns end,
// one more request asks the model for JSON matching the schema. The working turns never change (same tools,
// same system, same messages), so their cached prefix is unchanged; only this last request differs. A model
// that takes the API's structured outputs answers in text under `output_config.format` with tools set aside
// (`tool_choice: none`); any other gets one more tool, `final_answer`, to call with the answer. The answer is
// validated against the schema as written; a mismatch is told back once, then the run's answer is an error
// that names the first mismatch.
import type { Model } from '../model/client.js';
import { classifyModelError } from '../model/client.js';
import type { ContentBlockParam, Message, ToolParam } from '../model/messages.js';
import type { OutputSchema } from '../model/output-schema.js';
import type { StructuredOutput } from './events.js';
import type { Transcript } from './turn.js';
import { toolResult } from './turn.js';

export const FINAL_ANSWER_TOOL = 'final_answer';

const ASK_TEXT =
  'The work is over. Now give the final answer this run was asked for: reply with only a JSON value that matches the output schema you were given, and nothing else.';
const ASK_TOOL = `The work is over. Now give the final answer this run was asked for: call the ${FINAL_ANSWER_TOOL} tool once, with the answer as its \`answer\`, matching its schema. Call no other tool.`;

export interface FinalAnswerRun {
  model: Model;
  system: string;
  tools: readonly ToolParam[];
  transcript: Transcript;
  maxTokens: number;
  signal?: AbortSignal;
}

/** Asks for the final answer, with one chance to correct it. */
export async function finalAnswer(run: FinalAnswerRun, output: OutputSchema): Promise<StructuredOutput> {
  const native = run.model.info.structuredOutputs;
  const tool: ToolParam = {
    name: FINAL_ANSWER_TOOL,
    description: 'Give the final answer of the run, once the work is over.',
    input_schema: {
      type: 'object',
      properties: { answer: output.wire },
      required: ['answer'],
      additionalProperties: false,
    },
  };
  const summary = run.transcript.lastText;
  let content: ContentBlockParam[] = [{ type: 'text', text: native ? ASK_TEXT : ASK_TOOL }];
  try {
    for (let attempt = 0; ; attempt++) {
      addUserTurn(run.transcript, content);
      const response = await run.model.send({
        system: run.system,
        tools: native ? run.tools : [...run.tools, tool],
        messages: run.transcript.messages,
        maxTokens: run.maxTokens,
        ...(native ? { outputSchema: output.wire, toolChoice: { type: 'none' as const } } : {}),
        ...(run.signal ? { signal: run.signal } : {}),
      });
      run.transcript.record(response);
      const answer = native ? textAnswer(response) : toolAnswer(response);
      const problem = 'problem' in answer ? answer.problem : output.mismatch(answer.value);
      if (!problem && 'value' in answer) return { value: answer.value };
      if (attempt >= 1)
        return { error: `the final answer does not match output_schema after one correction: ${problem}` };
      const again = `That answer does not match the output schema: ${problem}. Answer again, matching it.`;
      content = [...unansweredCalls(response, again), { type: 'text', text: again }];
    }
  } catch (error) {
    return {
      error: `the final answer could not be had: ${classifyModelError(error, run.model.service).message}`,
    };
  } finally {
    // The summary of the work stays the model's own words, not the JSON.
    run.transcript.lastText = summary;
  }
}

type Answer = { value: unknown } | { problem: string };

function cutShort(response: Message): string | undefined {
  if (response.stop_reason === 'max_tokens') return 'it was cut off at the output limit';
  if (response.stop_reason === 'refusal') return 'the model declined to answer';
  return undefined;
}

function textAnswer(response: Message): Answer {
  const short = cutShort(response);
  if (short) return { problem: short };
  const text = response.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('')
    .trim();
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return { problem: text ? 'it is not JSON' : 'there is no answer' };
  }
}

function toolAnswer(response: Message): Answer {
  const call = response.content.find(
    (block) => block.type === 'tool_use' && block.name === FINAL_ANSWER_TOOL,
  );
  if (call?.type === 'tool_use') {
    const input = call.input as { answer?: unknown } | undefined;
    return input && 'answer' in input ? { value: input.answer } : { problem: 'the call has no `answer`' };
  }
  return { problem: cutShort(response) ?? `${FINAL_ANSWER_TOOL} was not called` };
}

/** A result for every tool call of `response` (each is refused: the run is over), so the history stays whole. */
function unansweredCalls(response: Message, why: string): ContentBlockParam[] {
  return response.content.flatMap((block) =>
    block.type === 'tool_use'
      ? [toolResult(block.id, block.name === FINAL_ANSWER_TOOL ? why : 'Not run: the work is over.', true)]
      : [],
  );
}

/** A user turn with `content`: added to the last user turn when the history ends with one (unsent results). */
function addUserTurn(transcript: Transcript, content: ContentBlockParam[]): void {
  const last = transcript.messages.at(-1);
  if (last?.role === 'user') {
    const earlier: ContentBlockParam[] =
      typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
    transcript.messages[transcript.messages.length - 1] = { role: 'user', content: [...earlier, ...content] };
  } else transcript.reply(content);
}
