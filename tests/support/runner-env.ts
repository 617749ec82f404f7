// A runner's environment for a job on an issue comment in the tests' repository (made-up hosts), without the
// action's inputs: the settings' tests and those of what the action makes of its settings start from it.
export const RUNNER_ENV = {
  GITHUB_REPOSITORY: 'octo-org/hello-world',
  GITHUB_EVENT_NAME: 'issue_comment',
  GITHUB_EVENT_PATH: '/tmp/event.json',
  GITHUB_RUN_ID: '4242',
  GITHUB_SERVER_URL: 'https://github.example.com/',
  GITHUB_API_URL: 'https://api.github.example.com/',
  GITHUB_WORKSPACE: '/work/repo',
} as const;
