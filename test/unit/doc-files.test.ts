import { readFileSync } from "node:fs";
import path from "node:path";
import { codeBlocksIn, documentationFiles, whereIs } from "../support/doc-blocks";
import { repoRoot } from "../support/repo-root";

// A documentation block marked `file=<path>` (```python file=examples/x/request.py) shows that
// file of the repository as it is: the commands that run the file (```sh test) run exactly what
// the reader sees.

const copies = documentationFiles()
  .flatMap((file) => codeBlocksIn(file))
  .flatMap((block) => {
    const word = block.words.find((w) => w.startsWith("file="));
    return word === undefined ? [] : [{ block, file: word.slice("file=".length) }];
  });

describe("documentation blocks that show a file", () => {
  it("exist (the serverless guide's request)", () => {
    expect(copies.map(({ file }) => file)).toContain("examples/serverless-endpoint/request.py");
  });

  it.each(copies.map(({ block, file }) => [whereIs(block), file, block.source] as const))(
    "%s is %s as it is",
    (_where, file, source) => {
      expect(source).toBe(readFileSync(path.join(repoRoot, file), "utf8"));
    },
  );
});
