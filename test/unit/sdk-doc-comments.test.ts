import { readFileSync } from "node:fs";
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
