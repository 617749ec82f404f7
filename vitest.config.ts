import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Generous: CI shares two cores with other work, and an end-to-end run of dist/ took 30 s at load 15.
    testTimeout: 90_000,
    hookTimeout: 30_000,
    // expect.poll passes as soon as its condition holds; the wait is for a loaded machine (CI runs about seven
    // test files at once on two cores), where one round trip to a test server can take over vitest's 1 s.
    expect: { poll: { timeout: 15_000 } },
    pool: 'forks',
  },
});
