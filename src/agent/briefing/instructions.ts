// Repository instructions: the files in which maintainers tell agents how to work in their repository.
// They are read from the base branch by the caller (never from the model's edits) and capped here.

/** Read in this order; all that exist are given, within the cap. */
export const INSTRUCTION_FILES = ['CLAUDE.md', 'AGENTS.md', '.github/copilot-instructions.md'] as const;
/** Characters of instructions given in all (about 5,000 tokens): guidance, not a second repository. */
export const MAX_INSTRUCTIONS_CHARS = 20_000;

export interface InstructionFile {
  path: string;
  text: string;
}

/**
 * The instruction files `read` finds (undefined for a missing file), each cut at a line boundary once the
 * shared cap runs out, with a note saying how much was left out.
 */
export async function loadInstructions(
  read: (path: string) => Promise<string | undefined>,
): Promise<InstructionFile[]> {
  const found: InstructionFile[] = [];
  let left = MAX_INSTRUCTIONS_CHARS;
  for (const path of INSTRUCTION_FILES) {
    const text = (await read(path))?.trim();
    if (!text) continue;
    if (left <= 0) {
      found.push({ path, text: `[left out: ${text.length} characters, over the size cap]` });
      continue;
    }
    const kept = text.length <= left ? text : text.slice(0, Math.max(0, text.lastIndexOf('\n', left)));
    const cut = text.length - kept.length;
    left = cut > 0 ? 0 : left - kept.length;
    found.push({
      path,
      text: cut > 0 ? `${kept}\n[cut here: ${cut} more characters, over the size cap]` : kept,
    });
  }
  return found;
}
