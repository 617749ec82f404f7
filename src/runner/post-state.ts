// What the action's main step tells its post step (action.yml's `post:`, src/post.ts) through the runner's
// state file, which the tools' sandbox hides: where the workspace and our own git directory are, how the
// sandbox was built and where its private directory is, and, once the main step put the workspace's git
// directories right itself, that it did. A post step that finds no state has nothing to do. The post step
// loads this module and not the runner's output (output.ts, with all of @actions/core) unless it has
// something to say, so its state is read here as the runner hands it over: STATE_<name> in the environment.
import * as z from 'zod/mini';

const STATE = 'todo_agent';
const CLEANED = 'todo_agent_cleaned';

const postStateSchema = z.object({
  workspace: z.string(),
  ownGitDir: z.string(),
  /** `sudo -n --` when the sandbox was built through sudo: the post step may remove with it. */
  escalate: z.optional(z.array(z.string())),
  /** The sandbox's private directory, and how to remove it (its escalation and rm). */
  sandbox: z.optional(z.object({ dir: z.string(), escalate: z.array(z.string()), rm: z.string() })),
});

export type PostState = z.infer<typeof postStateSchema>;

/** Saved before the first tool call, through `save` (output.ts's saveState). */
export function savePostState(save: (name: string, value: string) => void, state: PostState): void {
  save(STATE, JSON.stringify(state));
}

/** Saved once the main step itself put the workspace's git directories right (no tool could act after). */
export function saveCleaned(save: (name: string, value: string) => void): void {
  save(CLEANED, 'true');
}

/** What the main step saved: nothing when it never reached the tools. */
export function readPostState(env: NodeJS.ProcessEnv = process.env): { state?: PostState; cleaned: boolean } {
  const text = env[`STATE_${STATE}`];
  const cleaned = env[`STATE_${CLEANED}`] === 'true';
  if (!text) return { cleaned };
  return { state: postStateSchema.parse(JSON.parse(text)), cleaned };
}
