/** @type {import('jest').Config} */
const common = {
  testEnvironment: "node",
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.json" }] },
};

/**
 * The release's checks (test/release, RELEASING.md) run on a folder `npm run release` wrote,
 * named by GPUCLOUD_RELEASE_DIR (`npm run release:check -- DIR`); `npm test` has none.
 */
const releaseChecks = process.env.GPUCLOUD_RELEASE_DIR
  ? [
      {
        ...common,
        displayName: "release",
        testMatch: ["<rootDir>/test/release/**/*.test.ts"],
        setupFilesAfterEnv: ["<rootDir>/test/support/e2e-setup.ts"],
      },
    ]
  : [];

/** @type {import('jest').Config} */
module.exports = {
  testSequencer: "<rootDir>/test/support/sequencer.js",
  // End-to-end files each drive the real Pulumi CLI, whose processes wait on each other: three
  // at a time keep a 2-core machine busy (the whole run took 825 s of Jest with 3, 965 s with 2).
  maxWorkers: process.env.JEST_MAX_WORKERS ?? 3,
  projects: [
    {
      ...common,
      displayName: "unit+contract",
      testMatch: [
        "<rootDir>/test/{unit,contract,emulator}/**/*.test.ts",
        "<rootDir>/provider/**/*.test.ts",
      ],
    },
    {
      ...common,
      displayName: "e2e",
      testMatch: ["<rootDir>/test/e2e/**/*.test.ts"],
      setupFilesAfterEnv: ["<rootDir>/test/support/e2e-setup.ts"],
      // Installs the package from its tarball once per run (see scripts/install-package.mjs).
      globalSetup: "<rootDir>/test/support/e2e-global-setup.ts",
      globalTeardown: "<rootDir>/test/support/e2e-global-teardown.ts",
    },
    ...releaseChecks,
  ],
};
