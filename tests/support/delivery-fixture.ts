// A delivery's world for the tests of src/delivery/: a real clone of a bare origin that the GitHub emulator
// writes refs and API commits into (its pre-receive hook plays GitHub's push rules), our real git in the
// clone, and a request to deliver what the test writes there.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentResult } from '../../src/agent/events.js';
import type { DeliveryRequest } from '../../src/delivery/deliver.js';
import { GitHubApi } from '../../src/github/api/github-api.js';
import { GitRepo } from '../../src/git/repo.js';
import { commitFiles, git, GIT_ENV, useClonedOrigin, useGitScratch, type GitScratch } from './git-fixture.js';
import type { EmulatorOptions, GitHubEmulator } from './github/types.js';
import { TEST_REPO, TEST_TOKEN, useEmulatorPerTest } from './github/per-test.js';

export const BRANCH = 'agent/issue-1-7';

export const RESULT: AgentResult = {
  status: 'completed',
  reason: 'every todo item is completed',
  todos: [{ id: '1', text: 'Fix index.js', status: 'completed' }],
  lastText: 'Fixed index.js and added a workflow.',
  turns: 3,
  toolCalls: 4,
  usage: {
    input_tokens: 10,
    output_tokens: 10,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  },
  costUsd: 0.01,
};

export interface DeliveryWorld {
  /** The clone (`dir`) and its bare origin, made anew for each test. */
  scratch(): GitScratch;
  /** The emulator on the origin, and a delivery request (signed, opening a pull request) for the clone. */
  deliveryFor(
    emulator: EmulatorOptions,
    options?: Partial<DeliveryRequest>,
  ): Promise<{ emu: GitHubEmulator; request: DeliveryRequest }>;
  /** The operations on git refs the emulator answered, with their status. */
  refCalls(emu: GitHubEmulator): string[];
}

/** Per test: a clone whose main holds index.js and a workflow, pushed to its origin. */
export function useDeliveryWorld(prefix: string): DeliveryWorld {
  const startEmulator = useEmulatorPerTest();
  const scratch = useClonedOrigin(
    prefix,
    { 'index.js': 'module.exports = 1;\n', '.github/workflows/ci.yml': 'name: ci\n' },
    (dir) => mkdirSync(join(dir, '.github', 'workflows'), { recursive: true }),
  );
  return {
    scratch,
    async deliveryFor(emulator, options = {}) {
      const emu = await startEmulator({ remoteDir: scratch().origin, ...emulator });
      const api = new GitHubApi({ ...TEST_REPO, token: TEST_TOKEN, baseUrl: emu.url });
      const repo = new GitRepo(scratch().dir, { env: GIT_ENV });
      const request: DeliveryRequest = {
        git: repo,
        api,
        result: RESULT,
        startSha: await repo.head(),
        branch: BRANCH,
        base: 'main',
        continuesBranch: false,
        openPull: true,
        signed: true,
        commitMessage: 'Fix index.js',
        redact: (text) => text,
        pull: { title: 'Fix index.js', body: () => 'The description.', draft: false },
        ...options,
      };
      return { emu, request };
    },
    refCalls: (emu) =>
      emu.calls.filter((c) => c.operationId?.startsWith('git/')).map((c) => `${c.operationId} ${c.status}`),
  };
}

export interface WorkTree {
  dir: string;
  repo: GitRepo;
  /** The commit the run starts from. */
  start: string;
  /** Writes a file of the work tree, making its folders. */
  write(path: string, content: string): void;
}

/**
 * Per test: a repository (no origin) whose one commit holds `files`, and our git on it. The returned work tree
 * is the current test's: its fields are set anew before each test.
 */
export function useWorkTree(prefix: string, files: Record<string, string>): WorkTree {
  const tree: WorkTree = {
    dir: '',
    repo: undefined as unknown as GitRepo,
    start: '',
    write(path, content) {
      mkdirSync(join(tree.dir, path, '..'), { recursive: true });
      writeFileSync(join(tree.dir, path), content);
    },
  };
  useGitScratch(prefix, ({ dir }) => {
    mkdirSync(dir);
    git(dir, 'init', '-q', '-b', 'main');
    commitFiles(dir, files, 'start');
    tree.dir = dir;
    tree.repo = new GitRepo(dir, { env: GIT_ENV });
    tree.start = git(dir, 'rev-parse', 'HEAD');
  });
  return tree;
}
