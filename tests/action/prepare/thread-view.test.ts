// What the model sees of the thread besides its text, against the GitHub emulator: the map of the issues and
// pull requests the task and the thread point to, and, when the pictures cannot be read, one line saying so
// and a warning, never a failed run.
import { describe, expect, it } from 'vitest';
import { threadView } from '../../../src/action/prepare/thread-view.js';
import type { IssueComment } from '../../../src/github/api/issues.js';
import type { RunTrigger } from '../../../src/github/request/trigger.js';
import { useApiPerTest } from '../../support/github/per-test.js';
import { usePrinted } from '../../support/printed.js';
import { reviewComment } from '../../support/review-comments.js';
import { commentTrigger } from '../../support/runner-env.js';

const apiFor = useApiPerTest();
const printed = usePrinted();
const SERVER = 'https://github.example.com';

async function view(issueHtml: Promise<string>) {
  const { api, emu } = await apiFor({
    issues: [
      { number: 1, title: 'Tidy up', body: 'Please tidy, as #2 asks.' },
      { number: 2, title: 'Earlier cleanup', state: 'closed' },
      { number: 3, title: 'Fix the parser', pull_request: { head: 'fix' } },
    ],
  });
  const trigger: RunTrigger = {
    ...commentTrigger(),
    issueBody: 'Please tidy, as #2 asks.',
    kind: 'run',
    request: { kind: 'task', task: 'tidy up, like #3 did' },
  };
  const thread: IssueComment[] = [reviewComment(10, { user: 'writer', body: 'See also #99.' })];
  const shown = await threadView({
    api,
    serverUrl: SERVER,
    trigger,
    issueHtml,
    reviews: Promise.resolve([]),
    allComments: thread,
    thread,
    threads: [],
    permissions: new Map([['writer', 'write']]),
  });
  return { shown, emu };
}

describe('threadView', () => {
  it('maps every issue and pull request the task, the issue and the thread point to, itself left out', async () => {
    const { shown, emu } = await view(Promise.resolve('<p>Please tidy.</p>'));
    expect(shown.pictures).toEqual([]);
    expect([...shown.references].sort()).toEqual([
      '#2 issue, closed: "Earlier cleanup"',
      '#3 pull request, open: "Fix the parser"',
      '#99: not found in this repository',
    ]);
    expect(emu.violations).toEqual([]);
  });

  it("tells the model, and warns, when the thread's pictures cannot be read, and still maps the references", async () => {
    const { shown } = await view(Promise.reject(new Error('the description could not be read')));
    expect(shown.pictures).toEqual([
      { label: 'the thread', skipped: 'its pictures could not be read (the description could not be read)' },
    ]);
    expect(shown.references).toHaveLength(3);
    expect(printed()).toContain(
      "::warning::The thread's pictures could not be read: the description could not be read",
    );
  });
});
