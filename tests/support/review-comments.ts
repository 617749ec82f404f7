// A comment on a line of a pull request as our API client reads it: by a maintainer (an owner) on hello.py,
// at a time given, with what a test changes.
import type { ReviewComment } from '../../src/github/api/pulls.js';

export const reviewComment = (id: number, more: Partial<ReviewComment> = {}): ReviewComment => ({
  id,
  body: 'please fix',
  user: 'maintainer',
  userType: 'User',
  association: 'OWNER',
  createdAt: '2026-01-02T03:04:05Z',
  updatedAt: '2026-01-02T03:04:05Z',
  htmlUrl: '',
  path: 'hello.py',
  diffHunk: '@@ -1 +1 @@',
  ...more,
});
