// Prints CHANGELOG.md's section of one version (the release's notes):
//   node scripts/changelog-section.mjs 0.1.0
import { readFileSync } from "node:fs";
import path from "node:path";

const version = process.argv[2];
const text = readFileSync(path.join(import.meta.dirname, "..", "CHANGELOG.md"), "utf8");
const sections = text.split(/^## /m).slice(1);
const section = sections.find((s) => s.startsWith(`${version} `) || s.startsWith(`${version}\n`));
if (section === undefined) {
  process.stderr.write(`CHANGELOG.md has no section for ${version}\n`);
  process.exit(1);
}
process.stdout.write(section.slice(section.indexOf("\n") + 1).trim() + "\n");
