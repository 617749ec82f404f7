// `npm run demo:cli`: the CLI offline, as a user runs it in a project. It makes a throw-away git repository
// holding the seeds' hello.py, starts the scripted stand-in for the Anthropic API (tests/support/anthropic/)
// playing the seeds' session, and runs the committed bundle dist/cli.js there with its live panel; then it
// shows what the run changed (git diff) and removes the repository. Flags after `--` go to the CLI
// (`npm run demo:cli -- --transcript /tmp/run.jsonl`). No network, no key of yours: the key is a stand-in.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createSandbox, ROOT } from '../tests/support/action-harness.js';
import { HELLO_FILES, HELLO_TASK, helloScript } from '../tests/support/anthropic/scenarios.js';
import { startModelServer } from '../tests/support/anthropic/server.js';

const CLI = join(ROOT, 'dist/cli.js');
const KEY = 'sk-ant-demo-key-0000000000000000000000001';
/** Per reply: slow enough to watch the panel move. */
const MODEL_LATENCY_MS = 300;

async function main(): Promise<number> {
  if (!existsSync(CLI)) {
    process.stderr.write(`${CLI} is missing: run npm run build first.\n`);
    return 1;
  }
  const repo = await createSandbox(HELLO_FILES);
  const model = await startModelServer(helloScript(), { apiKey: KEY, latencyMs: MODEL_LATENCY_MS });
  try {
    const say = (text: string) => process.stdout.write(`${text}\n`);
    say(
      `A project with hello.py in ${repo.workspace} (removed at the end), and a scripted model at ${model.url}:`,
    );
    say(`$ ANTHROPIC_BASE_URL=${model.url} todo-agent "${HELLO_TASK}"\n`);
    const child = spawn(process.execPath, [CLI, HELLO_TASK, ...process.argv.slice(2)], {
      cwd: repo.workspace,
      stdio: 'inherit',
      env: { ...process.env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: model.url },
    });
    // Ctrl-C reaches the CLI too (the same process group): it stops the run, which then ends here.
    process.on('SIGINT', () => undefined);
    const code = await new Promise<number | null>((done) => child.on('close', done));
    say(`\n$ git diff`);
    say(await repo.git(['diff']));
    return code ?? 1;
  } finally {
    await model.close();
    await repo.cleanup();
  }
}

process.exitCode = await main();
