import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { z } from "zod";
import { providerEntry, providerShim, providerSource } from "../../provider/shim";

// Every resource module (provider/resources/<name>.ts) has its provider entry module
// (provider/dynamic/<name>.ts), the module that each resource's state names: see
// provider/shim.ts. A resource without one would fail at construction.
const root = path.resolve(__dirname, "..", "..");
const resourceNames = readdirSync(path.join(root, "provider", "resources"))
  .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
  .map((file) => file.replace(/\.ts$/, ""));
const methods = ["configure", "check", "diff", "create", "read", "update", "delete"];

describe("provider entry modules", () => {
  it("exist for every resource module", () => {
    expect(resourceNames).toEqual(
      expect.arrayContaining(["secret", "webhook", "volume", "instance"]),
    );
    const entries = readdirSync(path.join(root, "provider", "dynamic")).map((file) =>
      file.replace(/\.ts$/, ""),
    );
    expect(entries.sort()).toEqual([...resourceNames].sort());
  });

  it.each(resourceNames)("%s: the shim hands Pulumi the entry module's exports", (name) => {
    const shim = providerShim(`pulumi-gpucloud/provider/resources/${name}`);
    // The module a state's `__provider` requires, as the provider process loads it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    expect(shim).toBe(require(`../../provider/dynamic/${name}`));
    expect(Object.keys(shim).sort()).toEqual([...methods].sort());
  });

  it.each(resourceNames)("%s: the class names the entry by its shorter name", (name) => {
    expect(providerEntry(`pulumi-gpucloud/provider/resources/${name}`)).toBe(
      `pulumi-gpucloud/dynamic/${name}`,
    );
  });

  it("every class names its own module's entry, with its own type", () => {
    // A class copied from another and left naming the other's entry would send its resources'
    // calls to the other's implementation.
    const classFiles = [
      ...readdirSync(path.join(root, "provider", "resources"), { recursive: true }).map((file) =>
        path.join("provider", "resources", String(file)),
      ),
      path.join("provider", "renting", "stack-sweeper.ts"),
    ].filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"));
    const named = classFiles.flatMap((file) => {
      const source = readFileSync(path.join(root, file), "utf8");
      const call =
        /providerEntry\("pulumi-gpucloud\/provider\/resources\/([a-z-]+)"\)[\s\S]*?"([A-Za-z]+)",\s*\)/s.exec(
          source,
        );
      return call ? [{ file, entry: call[1], type: call[2] }] : [];
    });
    expect(named.map(({ entry }) => entry).sort()).toEqual([...resourceNames].sort());
    for (const { file, entry, type } of named) {
      const own = file.includes("stack-sweeper")
        ? "instance-sweeper"
        : file.split(path.sep)[2]?.replace(/\.ts$/, "");
      expect({ file, entry }).toEqual({ file, entry: own });
      expect({ file, type: type?.replace(/(?<=[a-z])(?=[A-Z])/g, "-").toLowerCase() }).toEqual({
        file,
        type: entry,
      });
    }
  });

  it("every __provider a state may hold loads the entry through the SDK's require-from-string", () => {
    // As the SDK's dynamic-provider process loads it (cmd/dynamic-provider: requireFromString,
    // then handler()), in a project that installed the package (this repository's node_modules
    // holds the installed copy: `npm run build`). Today's text, and the serializer's before it.
    const serializerText = (entry: string) =>
      `exports.handler = __f0;\nconst provider = require(${JSON.stringify(entry)});\n\n` +
      "function __f0() {\n  return (function() {\n    with({ this: undefined, arguments: undefined }) {\n\n" +
      "return () => provider;\n\n    }\n  }).apply(undefined, undefined).apply(this, arguments);\n}\n";
    const texts = {
      today: providerSource("pulumi-gpucloud/dynamic/secret"),
      serializer: serializerText("pulumi-gpucloud/dynamic/secret"),
      "serializer, before ./dynamic/*": serializerText("pulumi-gpucloud/provider/dynamic/secret"),
    };
    const installedEntry = path.join(
      root,
      "node_modules",
      "pulumi-gpucloud",
      "dist",
      "provider",
      "dynamic",
      "secret.js",
    );
    const script = `
      const requireFromString = require(require.resolve("require-from-string", {
        paths: [require.resolve("@pulumi/pulumi/cmd/dynamic-provider")],
      }));
      const texts = JSON.parse(process.argv[1]);
      // The installed copy's entry (by name, this checkout would resolve to itself).
      const entry = require(${JSON.stringify(installedEntry)});
      console.log(JSON.stringify(Object.fromEntries(Object.entries(texts).map(([form, text]) => {
        const provider = requireFromString(text).handler();
        return [form, provider === entry && typeof provider.create === "function"];
      }))));`;
    const loaded = z.record(z.string(), z.boolean()).parse(
      JSON.parse(
        execFileSync(process.execPath, ["-e", script, JSON.stringify(texts)], {
          cwd: root,
          encoding: "utf8",
        }),
      ),
    );
    expect(loaded).toEqual({
      today: true,
      serializer: true,
      "serializer, before ./dynamic/*": true,
    });
  });

  it.each(resourceNames)("%s: the entry imports nothing but the shim", (name) => {
    // What it imports is loaded by every provider process, before any resource's module.
    const source = readFileSync(path.join(root, "provider", "dynamic", `${name}.ts`), "utf8");
    expect([...source.matchAll(/from "([^"]+)"/g)].map((match) => match[1])).toEqual(["../shim"]);
  });

  it("refuses a module path it cannot serve", () => {
    expect(() => providerEntry("pulumi-gpucloud/provider/resources/nothing-here")).toThrow(
      /add provider\/dynamic\/nothing-here\.ts/,
    );
    expect(() => providerShim("./provider/resources/secret")).toThrow(/is not/);
  });
});
