// The job the action's unit tests run in: a runner's environment for a job on an issue comment in the tests'
// repository (made-up hosts, no action inputs), and the comment's trigger as the action reads it.
import type { TriggerSource } from '../../src/github/request/trigger.js';

export const RUNNER_ENV = {
  GITHUB_REPOSITORY: 'octo-org/hello-world',
  GITHUB_EVENT_NAME: 'issue_comment',
  GITHUB_EVENT_PATH: '/tmp/event.json',
  GITHUB_RUN_ID: '4242',
  GITHUB_SERVER_URL: 'https://github.example.com/',
  GITHUB_API_URL: 'https://api.github.example.com/',
  GITHUB_WORKSPACE: '/work/repo',
} as const;

/** A maintainer's comment on an open issue of the tests' repository (issue 1 unless `issueNumber` says). */
export const commentTrigger = (issueNumber = 1): TriggerSource => ({
  origin: { kind: 'issue_comment', id: 5, at: '2026-01-01T00:00:00Z' },
  issueNumber,
  isPullRequest: false,
  sender: 'maintainer',
  owner: 'octo-org',
  repo: 'hello-world',
  issueTitle: 'Tidy up',
  issueBody: 'Please tidy.',
  issueAuthor: 'maintainer',
  issueAuthorAssociation: 'OWNER',
  issueState: 'open',
  locked: false,
});
