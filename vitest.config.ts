import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Generous: CI shares two cores with other work, and an end-to-end run of dist/ took 30 s at load 15.
    testTimeout: 90_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
