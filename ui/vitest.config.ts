import { defineConfig, mergeConfig } from "vitest/config"

import viteConfig from "./vite.config.ts"

/**
 * The test settings on top of vite.config.ts (which holds `test.include` and the global setup).
 * Every wait in the tests waits for something to be ready (a pane's rows, the daemon's answer);
 * these budgets only say how long a cold, busy machine may take before that counts as a failure.
 * Vitest's defaults are tuned to a warm one: `expect.poll` gives up after 1 s, which a fresh clone's
 * first frame (first Chromium start, first load of the built assets) overran on 2 busy cores. A
 * passing wait returns as soon as its condition holds, so a long budget costs nothing warm. 30 s
 * is Playwright's own default for `waitFor`, so both kinds of wait allow the same.
 */
export default mergeConfig(
  viteConfig,
  defineConfig({
    test: {
      // Hooks start a daemon and a browser. A browser test takes up to 32 s warm on 2 busy cores (a
      // minute was once each test's own budget, which that leaves too little room cold).
      hookTimeout: 120_000,
      // The three browser files (the workbench, the real daemon, the frame) run side by side: each
      // spends most of its time waiting on Chromium and the daemon, not on the CPU, so on 2 cores
      // they take about as long together as the longest alone (Vitest's default is cores − 1: one).
      maxWorkers: 3,
      testTimeout: 180_000,
      expect: { poll: { timeout: 30_000 } },
    },
  }),
)
