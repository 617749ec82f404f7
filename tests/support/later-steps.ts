// What a workflow runs in the workspace after the action, as the runner's user: a plain `git status`, `log`,
// `diff` (with the machine's configuration, no safe.directory trick but the one actions/checkout itself adds),
// and actions/checkout's post step, which always runs `git config --local …` and `git submodule foreach
// --recursive …` to remove its credentials (the commands as its log prints them), with the checkout's token in
// INPUT_TOKEN. A test plants commands that leave a file in a marks folder, then checks the folder is empty.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** actions/checkout's post step, as its log shows it, for each setting it removes. */
const CHECKOUT_POST = [
  String.raw`core\.sshCommand`,
  String.raw`http\.https\:\/\/github\.com\/\.extraheader`,
  String.raw`^includeIf\.gitdir:`,
].flatMap((pattern) => [
  ['config', '--local', '--name-only', '--get-regexp', pattern],
  [
    'submodule',
    'foreach',
    '--recursive',
    `sh -c "git config --local --name-only --get-regexp '${pattern}' && git config --local --unset-all '${pattern}' || :"`,
  ],
]);

/** A plain later step's git commands. */
const PLAIN = [
  ['status'],
  ['log', '-p', '-2'],
  ['diff'],
  ['diff', '--cached'],
  ['st'],
  ['submodule', 'status'],
];

export interface LaterStepOptions {
  /** The runner's user (the action's); absent: this process's. */
  as?: { uid: number; gid: number } | undefined;
  /** The token actions/checkout's post step holds. */
  token?: string;
}

/**
 * Runs a later step's plain git and actions/checkout's post step in each of `dirs` (the workspace, and any
 * folder a step might work in), as the runner's user with a HOME of its own that trusts the workspace, as
 * checkout's post step makes one.
 */
export function laterSteps(dirs: readonly string[], options: LaterStepOptions = {}): void {
  const home = mkdtempSync(join(tmpdir(), 'todo-agent-later-'));
  try {
    writeFileSync(join(home, '.gitconfig'), '[safe]\n\tdirectory = *\n');
    spawnSync('chmod', ['-R', 'a+rwX', home]);
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      LANG: 'C.UTF-8',
      ...(options.token ? { INPUT_TOKEN: options.token } : {}),
    };
    for (const cwd of dirs)
      for (const args of [...PLAIN, ...CHECKOUT_POST])
        spawnSync('git', args, { cwd, env, stdio: 'ignore', timeout: 30_000, ...options.as });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** The folder a planted command marks (`touch $R/marks/<name>`), in `root`, writable by any user. */
export function marksFolder(root: string): string {
  const marks = join(root, 'marks');
  mkdirSync(marks);
  chmodSync(marks, 0o777);
  return marks;
}
