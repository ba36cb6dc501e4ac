import { readFileSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "../support/repo-root";

// The README is a user's first page: what the package is, how to install, configure and start,
// and where the rest is. Detail belongs in docs/guides (issue 52: a newcomer's first hour).
test("README.md stays within 300 lines", () => {
  const lines = readFileSync(path.join(repoRoot, "README.md"), "utf8").trimEnd().split("\n");
  expect(lines.length).toBeLessThanOrEqual(300);
});
