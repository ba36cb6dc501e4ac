import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { packageSchema } from "../../provider/native/schema";
import { repoRoot } from "../support/repo-root";

// The descriptions of the schema are the SDKs' doc comments, in words every language reads
// (no TypeScript object literals), and the generated SDKs keep them whole, quotes included (a
// Go doc comment once lost its quotes). sdk-drift.test.ts keeps the SDKs generated from the
// schema of now; this says what they hold.

const schema = packageSchema("0.0.0");

/** Every description of the schema, with where it is. */
function descriptions(): [string, string][] {
  const found: [string, string][] = [];
  const walk = (value: unknown, where: string): void => {
    if (typeof value !== "object" || value === null) return;
    for (const [key, inner] of Object.entries(value)) {
      if (key === "description" && typeof inner === "string") found.push([where, inner]);
      else if (key !== "example") walk(inner, `${where}/${key}`);
    }
  };
  walk(schema, "");
  return found;
}

const sdkFile = (...parts: string[]) => readFileSync(path.join(repoRoot, "sdk", ...parts), "utf8");

describe("the SDKs' doc comments", () => {
  it("are in words every language reads: no object literal of TypeScript's", () => {
    const literal = /\{ ?[A-Za-z_]+: /;
    expect(descriptions().filter(([, text]) => literal.test(text))).toEqual([]);
  });

  it("keep the descriptions whole, quotes included, in Go and Python", () => {
    const getOffers = schema.functions["gpucloud:index:getOffers"]?.description ?? "";
    expect(getOffers).toContain('"');
    expect(sdkFile("go", "gpucloud", "getOffers.go")).toContain(`// ${getOffers}\nfunc GetOffers(`);
    expect(sdkFile("python", "pulumi_gpucloud", "get_offers.py")).toContain(getOffers);
    const offerQuery =
      schema.resources["gpucloud:index:Instance"]?.inputProperties["offerQuery"]?.description ?? "";
    expect(offerQuery).toContain('"gpu_name=RTX_4090 num_gpus=1"');
    expect(sdkFile("go", "gpucloud", "instance.go")).toContain(`// ${offerQuery}\n`);
    expect(sdkFile("python", "pulumi_gpucloud", "instance.py")).toContain(offerQuery);
  });
});

/** Every field name of the schema spelt in camelCase (`gpuRamGb`), and every function's. */
function camelCaseNames(): Set<string> {
  const names = new Set<string>(
    Object.keys(schema.functions).map((token) => token.split(":")[2] ?? ""),
  );
  const walk = (value: unknown): void => {
    if (typeof value !== "object" || value === null) return;
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      const fields = ["properties", "inputProperties", "variables"].includes(key);
      if (fields && typeof inner === "object" && inner !== null) {
        for (const name of Object.keys(inner)) names.add(name);
      }
      if (key !== "language") walk(inner);
    }
  };
  walk(schema);
  return new Set([...names].filter((name) => /^[a-z][a-z0-9]*[A-Z]/.test(name)));
}

/** The docstrings of a Python file: its triple-quoted strings. */
const docstringsOf = (text: string): string[] =>
  [...text.matchAll(/"""([\s\S]*?)"""/g)].map((match) => match[1] ?? "");

describe("the Python SDK's docstrings", () => {
  it("spell the schema's fields and functions as Python does (gpu_ram_gb, get_offers)", () => {
    const names = camelCaseNames();
    expect(names).toContain("gpuRamGb");
    expect(names).toContain("maxDollarsPerHour");
    const root = path.join(repoRoot, "sdk", "python", "pulumi_gpucloud");
    const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((file) =>
      /\.pyi?$/.test(file),
    );
    expect(files.length).toBeGreaterThan(20);
    // A name within a longer one (the config key `gpucloud:baseUrl`, a path) is not a field's.
    const word = /(?<![A-Za-z0-9_:./$-])[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*\b/g;
    const found = files.flatMap((file) =>
      docstringsOf(readFileSync(path.join(root, file), "utf8")).flatMap((docstring) =>
        [...docstring.matchAll(word)]
          .map((match) => match[0])
          .filter((name) => names.has(name))
          .map((name) => `${file}: ${name}`),
      ),
    );
    expect([...new Set(found)]).toEqual([]);
    // They still say it: the description of Instance's askId, in Python's words.
    expect(readFileSync(path.join(root, "instance.py"), "utf8")).toContain(
      "Give this, `ask_ids` or `offer_query`.",
    );
  });
});
