// `npm run test:durations`: writes each test file's time in the last `npm test` (its Jest results,
// .test-results.json) to test/durations.json, which orders the next runs longest first
// (test/support/sequencer.js). Run it after a whole run on a quiet machine; commit the file.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = process.cwd();
const results = JSON.parse(readFileSync(".test-results.json", "utf8"));
const seconds = results.testResults
  .map((file) => [
    path.relative(root, file.name).split(path.sep).join("/"),
    Math.max(1, Math.round((file.endTime - file.startTime) / 1000)),
  ])
  .sort((a, b) => b[1] - a[1]);
// Results from another checkout (a fresh clone's CI run) would name files outside this one, which
// the sequencer never finds: it then orders every file by a guess.
const outside = seconds.filter(([file]) => file.startsWith(".."));
if (outside.length > 0) {
  console.error(
    `test-durations: ${outside.length} files lie outside ${root} (first: ${outside[0][0]}): run it in the checkout whose npm test wrote .test-results.json`,
  );
  process.exit(1);
}
writeFileSync("test/durations.json", `${JSON.stringify(Object.fromEntries(seconds), null, 2)}\n`);
console.log(`test/durations.json: ${seconds.length} files`);
