// @ts-check
const { default: DefaultSequencer } = require("@jest/test-sequencer");
const path = require("node:path");
const durations = require("../durations.json");

const root = path.join(__dirname, "..", "..");

/**
 * Jest runs the longest files first when it has their times from an earlier run on this machine;
 * on a fresh clone (CI) it has none and falls back to file size, which put a 9-minute end-to-end
 * file last. This sequencer falls back to the times of the last CI run instead
 * (test/durations.json: `npm run test:durations` after a whole `npm test`), so the longest files
 * start first and the run ends with the short ones.
 */
class LongestFirst extends DefaultSequencer {
  /** @param {import("@jest/test-result").Test} test */
  time(test) {
    const seconds = /** @type {Record<string, number>} */ (durations)[
      path.relative(root, test.path).split(path.sep).join("/")
    ];
    // A file new since then: an end-to-end one is long, anything else short.
    const guess = test.path.includes(`${path.sep}e2e${path.sep}`) ? 60 : 1;
    return super.time(test) ?? (seconds ?? guess) * 1000;
  }
}

module.exports = LongestFirst;
