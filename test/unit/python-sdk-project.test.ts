import { execFileSync } from "node:child_process";
import path from "node:path";
import { z } from "zod";
import { repoRoot } from "../support/repo-root";

// The Python SDK's pyproject.toml (written by scripts/gen-sdks): its licence is the SPDX string
// setuptools 77 and later take without a deprecation warning at `pip install` (PEP 639), and it
// asks for a setuptools that takes it. Read with Python's own TOML parser.

const projectSchema = z.object({
  project: z.object({ license: z.unknown() }),
  "build-system": z.object({ requires: z.array(z.string()) }),
});

describe("the Python SDK's project file", () => {
  const text = execFileSync(
    "python3",
    [
      "-c",
      "import json, sys, tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], 'rb'))))",
      path.join(repoRoot, "sdk", "python", "pyproject.toml"),
    ],
    { encoding: "utf8" },
  );
  const project = projectSchema.parse(JSON.parse(text));

  it("gives its licence as a SPDX string, not the deprecated table", () => {
    expect(project.project.license).toBe("Apache-2.0");
  });

  it("builds with a setuptools that takes that string (77 or later)", () => {
    expect(project["build-system"].requires).toEqual(["setuptools>=77.0.0"]);
  });
});
