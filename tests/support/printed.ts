// What the process prints to its stdout (the runner's log, for the action), caught for the calling test file:
// `printed()` is everything written since the test began, as one string.
import { afterEach, beforeEach, vi } from 'vitest';

export function usePrinted(): () => string {
  let chunks: string[] = [];
  beforeEach(() => {
    chunks = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      chunks.push(String(chunk));
      return true;
    });
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  return () => chunks.join('');
}
