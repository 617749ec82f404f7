// `npm run demo`: the whole flow offline. It runs the committed bundle (dist/index.js) the way a GitHub
// runner does, against the local GitHub emulator and a scripted model, then shows what a maintainer would
// see: the trigger, the job log, every version of the checklist comment, the pull request and its diff.
// It exits non-zero when the run did not complete, so it doubles as a smoke test of the bundle.
// `--pictures` (`npm run pictures`) also writes what it showed as images into docs/pictures/, with headless
// Chromium; `--sources DIR` writes only the fingerprints of what those images would show (see scripts/pictures/).
import { openSandbox, SandboxError } from '../src/sandbox/setup.js';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import {
  createSandbox,
  issueCommentEvent,
  OWNER,
  REPO,
  ROOT,
  runAction,
  type ActionRun,
  type Sandbox,
} from '../tests/support/action-harness.js';
import {
  MODE_MODEL_ID,
  startModelServer,
  type ScriptedModelServer,
} from '../tests/support/anthropic/server.js';
import {
  startGitHubEmulator,
  type CommentState,
  type GitHubEmulator,
} from '../tests/support/github/emulator.js';
import { HELLO_FILES, HELLO_TASK, helloScript } from '../tests/support/anthropic/scenarios.js';
import { shouldColor } from '../src/terminal/screen.js';
import { moments, type PullRequestView } from './pictures/moments.js';
import { writePictures, writeSources } from './pictures/write.js';

const ENTRY = join(ROOT, 'dist/index.js');
// Stand-ins: the emulator and the scripted model check them, and the action must mask them in its log.
const TOKEN = 'ghs_demoToken00000000000000000000000000001';
const KEY = 'sk-ant-demo-key-0000000000000000000000001';
const MAINTAINER = 'maintainer';
const BOT = 'github-actions[bot]';
/**
 * Per model reply. The checklist's writer starts at most one write a second, and the script updates its list
 * every two replies: at 600 ms each update gets a version of its own, so the comment's versions (and the
 * pictures taken of them) are the same from run to run; at 300 ms some were folded together, more or fewer
 * with the machine's load.
 */
const MODEL_LATENCY_MS = 600;
/** A stuck run is stopped (SIGTERM, as a job timeout would) rather than left hanging. */
const WATCHDOG_MS = 120_000;
const REACTION_EMOJI: Record<string, string> = { eyes: '👀', rocket: '🚀', '+1': '👍', confused: '😕' };
const { values: FLAGS } = parseArgs({
  options: { pictures: { type: 'boolean', default: false }, sources: { type: 'string' } },
});

// ---- output ----

const color = shouldColor(process.stdout, process.env);
const style =
  (open: string, close = '22') =>
  (text: string) =>
    color ? `\u001b[${open}m${text}\u001b[${close}m` : text;
const bold = style('1');
const dim = style('2');
const red = style('31', '39');
const green = style('32', '39');
const yellow = style('33', '39');
const cyan = style('36', '39');

const print = (text = '') => process.stdout.write(`${text}\n`);
let sectionNumber = 0;
function section(title: string): void {
  const heading = `── ${++sectionNumber}. ${title} `;
  print();
  print(bold(heading.padEnd(80, '─')));
}
/** Text shown as a quoted block, so it stands apart from the demo's own lines. */
const quote = (text: string, paint: (line: string) => string = (line) => line) =>
  text.split('\n').forEach((line) => print(`${dim('│')} ${paint(line)}`));

// ---- the action's log ----

/**
 * Turns the action's stdout into plain reading: `::group::` becomes a heading, other workflow commands
 * (`::add-mask::`, `::endgroup::`, `::debug::`) are dropped, and warnings and errors keep their message.
 */
function readableLogLine(line: string): string | undefined {
  const group = /^::group::(.*)$/.exec(line);
  if (group) return bold(`▸ ${group[1]}`);
  const annotation = /^::(warning|error|notice)(?: [^:]*)?::(.*)$/.exec(line);
  if (annotation) {
    const [, level, message] = annotation as unknown as [string, string, string];
    const text = `${level}: ${unescapeCommand(message)}`;
    return level === 'error' ? red(text) : yellow(text);
  }
  if (/^::[a-z-]+(?: [^:]*)?::/.test(line)) return undefined;
  return line === '' ? '' : `  ${line}`;
}

/** Workflow command data escapes %, CR and LF. */
const unescapeCommand = (text: string) =>
  text.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');

/** Prints the child's stdout line by line as it arrives. */
function streamLog(child: ChildProcess): void {
  let pending = '';
  child.stdout?.on('data', (chunk: Buffer | string) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const shown = readableLogLine(line);
      if (shown !== undefined) print(shown);
    }
  });
  child.stdout?.on('end', () => {
    const shown = pending && readableLogLine(pending);
    if (shown) print(shown);
  });
}

// ---- the checklist comment ----

/** When each version of `comment` was written, in ms since `start`: its creation, then each edit. */
function versionTimes(github: GitHubEmulator, comment: CommentState, start: number): number[] {
  const writes = github.calls.filter(
    (call) =>
      (call.method === 'POST' &&
        call.status === 201 &&
        (call.response as { id?: number } | undefined)?.id === comment.id) ||
      (call.method === 'PATCH' && call.status === 200 && call.path.endsWith(`/comments/${comment.id}`)),
  );
  return writes.map((call) => call.at - start);
}

function showVersions(github: GitHubEmulator, comment: CommentState, start: number): void {
  const times = versionTimes(github, comment, start);
  const total = comment.versions.length;
  comment.versions.forEach((body, index) => {
    const at = times.length === total ? times[index] : undefined;
    const when = at === undefined ? '' : ` (${index === 0 ? 'created' : 'edited'} at +${seconds(at)})`;
    print();
    print(cyan(`version ${index + 1} of ${total}${when}`));
    // The hidden agent-state line is dimmed: GitHub does not show it, a later run reads it.
    quote(body, (line) => (line.startsWith('<!--') ? dim(line) : line));
  });
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

// ---- the pull request ----

async function showPullRequest(github: GitHubEmulator, sandbox: Sandbox): Promise<void> {
  const pr = github.state.pulls[0];
  if (!pr) {
    print(red('No pull request was opened.'));
    return;
  }
  print(`${bold(`#${pr.number} ${pr.title}`)}`);
  print(`${pr.head} → ${pr.base} · ${pr.html_url}`);
  print();
  quote(pr.body);
  const inOrigin = (args: string[]) => sandbox.git(['--git-dir', sandbox.origin, ...args], sandbox.root);
  print();
  print(bold(`Commits on ${pr.head}:`));
  quote(await inOrigin(['log', '--format=%h %an <%ae>%n        %s', `${pr.base}..${pr.head}`]));
  print();
  print(bold(`git diff ${pr.base}..${pr.head}`));
  quote(await inOrigin(['diff', `${pr.base}..${pr.head}`]), paintDiffLine);
}

function paintDiffLine(line: string): string {
  if (/^(diff|index|---|\+\+\+) /.test(line)) return bold(line);
  if (line.startsWith('@@')) return cyan(line);
  if (line.startsWith('+')) return green(line);
  if (line.startsWith('-')) return red(line);
  return line;
}

// ---- the run ----

/** Everything the demo started, so it can all be stopped whatever happens. */
interface Stage {
  sandbox?: Sandbox;
  github?: GitHubEmulator;
  model?: ScriptedModelServer;
  child?: ChildProcess;
}

/** What went wrong, as sentences; empty when the run completed as it should. */
function problems(run: ActionRun, stage: Required<Omit<Stage, 'child'>>): string[] {
  const found: string[] = [];
  if (run.code !== 0) found.push(`the action exited with ${run.code ?? run.signal}`);
  if (run.outputs.status !== 'completed') found.push(`status is '${run.outputs.status ?? '(none)'}'`);
  if (!stage.github.state.pulls.some((pr) => pr.head === run.outputs.branch))
    found.push('no pull request was opened for the branch');
  for (const violation of stage.github.violations) found.push(`GitHub emulator: ${violation}`);
  for (const { message } of stage.model.violations) found.push(`model server: ${message}`);
  if (stage.model.remaining() > 0) found.push(`${stage.model.remaining()} scripted model replies unused`);
  return found;
}

/**
 * The action's `sandbox` input for this machine: `on` where the sandbox can be built (root, or passwordless
 * sudo), else `off`, so that the demo also runs on a laptop; either way the demo says which.
 */
async function sandboxHere(workspace: string): Promise<{ input: 'on' | 'off'; note: string }> {
  try {
    (await openSandbox({ workspace, network: 'host' })).close();
    return { input: 'on', note: 'commands run in the sandbox (sandbox: on)' };
  } catch (error) {
    if (!(error instanceof SandboxError)) throw error;
    return { input: 'off', note: `no sandbox here (${error.message}), so the demo sets sandbox: off` };
  }
}

async function demo(stage: Stage): Promise<boolean> {
  const sandbox = (stage.sandbox = await createSandbox(HELLO_FILES));
  const github = (stage.github = await startGitHubEmulator({
    owner: OWNER,
    repo: REPO,
    token: TOKEN,
    remoteDir: sandbox.origin,
    permissions: { [MAINTAINER]: 'admin' },
    issues: [
      { number: 1, title: 'Tidy up hello.py', body: 'hello.py could use type hints and a main guard.' },
    ],
  }));
  // The server plays today's default model, Claude Sonnet 5.5: signed thinking blocks bound to their prefix.
  const model = (stage.model = await startModelServer(helloScript(), {
    apiKey: KEY,
    latencyMs: MODEL_LATENCY_MS,
    mode: 'sonnet-5-5',
  }));

  print(bold('todo-agent demo'));
  print(`Runs ${ENTRY} as a GitHub runner would, with no network and no credentials:`);
  print(`  GitHub   an emulator of the REST API at ${github.url}`);
  print(
    `  model    a scripted stand-in for the Anthropic API playing ${MODE_MODEL_ID['sonnet-5-5']} at ${model.url} (${MODEL_LATENCY_MS} ms a reply)`,
  );
  print(
    `  repo     ${OWNER}/${REPO}: a bare origin and its checkout in ${sandbox.root} (removed at the end)`,
  );
  const toolSandbox = await sandboxHere(sandbox.workspace);
  print(`  tools    ${toolSandbox.note}`);

  const issue = github.state.issues.get(1)!;
  const body = `/agent ${HELLO_TASK}`;
  const trigger = github.addComment(issue.number, MAINTAINER, body);
  section(`The trigger: @${MAINTAINER} comments on issue #${issue.number}`);
  print(bold(`#${issue.number} ${issue.title}`));
  quote(issue.body);
  print();
  print(`@${MAINTAINER}:`);
  quote(body);

  section('The job log (dist/index.js, live)');
  const start = Date.now();
  let watchdog: NodeJS.Timeout | undefined;
  const run = await runAction({
    sandbox,
    apiUrl: github.url,
    event: issueCommentEvent({
      body,
      user: MAINTAINER,
      commentId: trigger.id,
      createdAt: trigger.created_at,
    }),
    inputs: {
      github_token: TOKEN,
      anthropic_api_key: KEY,
      anthropic_base_url: model.url,
      model: MODE_MODEL_ID['sonnet-5-5'],
      sandbox: toolSandbox.input,
    },
    onSpawn: (child) => {
      stage.child = child;
      streamLog(child);
      watchdog = setTimeout(() => child.kill('SIGTERM'), WATCHDOG_MS);
    },
  }).finally(() => clearTimeout(watchdog));
  if (run.stderr.trim()) {
    print(red('stderr:'));
    quote(run.stderr.trimEnd());
  }

  section('The checklist comment, version by version');
  const reactions = trigger.reactions.map((r) => `${REACTION_EMOJI[r] ?? ''} ${r}`.trim()).join(', ');
  print(`Reactions on the trigger comment: ${reactions || '(none)'}`);
  const checklist = [...github.state.comments.values()].filter((c) => c.user === BOT);
  if (checklist.length === 0) print(red('The action wrote no comment.'));
  for (const comment of checklist) showVersions(github, comment, start);

  section('The pull request');
  await showPullRequest(github, sandbox);

  section('The outputs');
  for (const name of ['status', 'pr_url', 'branch']) print(`${name.padEnd(7)} ${run.outputs[name] ?? ''}`);

  const found = problems(run, { sandbox, github, model });
  if (found.length === 0 && (FLAGS.pictures || FLAGS.sources))
    await savePictures(checklist[0]?.versions ?? [], github, sandbox);
  print();
  if (found.length === 0) {
    print(green(`Demo completed in ${seconds(Date.now() - start)}: the run finished and opened a PR.`));
    return true;
  }
  print(red('Demo FAILED:'));
  for (const problem of found) print(red(`  - ${problem}`));
  return false;
}

/** The moments the docs show, as pictures (`--pictures`) or as fingerprints alone (`--sources DIR`). */
async function savePictures(
  versions: readonly string[],
  github: GitHubEmulator,
  sandbox: Sandbox,
): Promise<void> {
  const pr = github.state.pulls[0]!;
  const count = await sandbox.git(
    ['--git-dir', sandbox.origin, 'rev-list', '--count', `${pr.base}..${pr.head}`],
    sandbox.root,
  );
  const pull: PullRequestView = {
    number: pr.number,
    title: pr.title,
    head: pr.head,
    base: pr.base,
    body: pr.body,
    commits: Number(count.trim()),
  };
  const found = moments(versions, pull);
  const written = FLAGS.pictures
    ? await writePictures(found, pull, BOT.replace('[bot]', ''))
    : [await writeSources(FLAGS.sources!, found)];
  section('The pictures');
  for (const moment of found) print(`${moment.name.padEnd(20)} ${moment.version ?? `#${pull.number}`}`);
  for (const path of written) print(`wrote ${relative(process.cwd(), path) || path}`);
}

async function main(): Promise<number> {
  if (!existsSync(ENTRY)) {
    process.stderr.write(`${ENTRY} is missing: run npm run build first.\n`);
    return 1;
  }
  const stage: Stage = {};
  // Ctrl-C or kill: let the action stop and save as it would on a cancelled job, then clean up below.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => stage.child?.kill('SIGTERM'));
  try {
    return (await demo(stage)) ? 0 : 1;
  } catch (error) {
    process.stderr.write(
      `demo: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  } finally {
    await Promise.allSettled([stage.github?.close(), stage.model?.close()]);
    await stage.sandbox?.cleanup();
  }
}

process.exitCode = await main();
