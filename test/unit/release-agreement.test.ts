import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { nodejsSdkPackage, pluginDownloadUrl } from "../../provider/native/package-metadata";
import { packageSchema } from "../../provider/native/schema";
import { packageVersion } from "../../provider/native/server";
import { repoRoot } from "../support/repo-root";

// The release's fast part, on every change (RELEASING.md): one version for everything (the
// package, the plugin, its schema, the SDKs), the same download URL everywhere the CLI reads
// it, and an npm package that holds what its README links to.
const read = (file: string) => readFileSync(path.join(repoRoot, file), "utf8");
const packageJson = z
  .object({ name: z.string(), version: z.string(), files: z.array(z.string()) })
  .parse(JSON.parse(read("package.json")));
const pluginJson = z.object({
  resource: z.boolean(),
  name: z.string(),
  version: z.string(),
  server: z.string(),
});
const version = packageJson.version;

test("the plugin and its schema carry package.json's version and the download URL", () => {
  expect(packageVersion()).toBe(version);
  const schema = packageSchema(packageVersion());
  expect(schema.version).toBe(version);
  // The org the Go module path names: its GitHub releases hold the plugin's tarballs.
  const goModule = /^module (\S+)$/m.exec(read("sdk/go/go.mod"))?.[1] ?? "";
  const org = /^github\.com\/([^/]+)\//.exec(goModule)?.[1];
  expect(schema.pluginDownloadURL).toBe(`github://api.github.com/${org}`);
  expect(pluginDownloadUrl).toBe(schema.pluginDownloadURL);
});

test.each(["sdk/python/pulumi_gpucloud/pulumi-plugin.json", "sdk/go/gpucloud/pulumi-plugin.json"])(
  "%s names the same plugin, version and download URL (else: npm run gen-sdks)",
  (file) => {
    expect(pluginJson.parse(JSON.parse(read(file)))).toEqual({
      resource: true,
      name: "gpucloud",
      version,
      server: pluginDownloadUrl,
    });
  },
);

test("sdk/nodejs/package.json is its own package, naming the plugin, version and URL (else: npm run gen-sdks)", () => {
  const nodejs = z
    .object({ name: z.string(), version: z.string(), pulumi: pluginJson })
    .parse(JSON.parse(read("sdk/nodejs/package.json")));
  // Never the dynamic classes' package, which needs no plugin.
  expect(nodejs.name).toBe(nodejsSdkPackage);
  expect(nodejs.name).not.toBe(packageJson.name);
  expect(nodejs.version).toBe(version);
  expect(nodejs.pulumi).toEqual({
    resource: true,
    name: "gpucloud",
    version,
    server: pluginDownloadUrl,
  });
  expect(read("sdk/nodejs/utilities.ts")).toContain(`pluginDownloadURL: "${pluginDownloadUrl}"`);
});

test("the SDKs' own version and download URL agree (else: npm run gen-sdks)", () => {
  expect(/^\s*version = "([^"]+)"/m.exec(read("sdk/python/pyproject.toml"))?.[1]).toBe(version);
  expect(read("sdk/python/pulumi_gpucloud/_utilities.py")).toContain(
    `def get_plugin_download_url():\n\treturn "${pluginDownloadUrl}"`,
  );
  const goDefaults = read("sdk/go/gpucloud/internal/pulumiUtilities.go");
  expect(goDefaults).toContain(`semver.MustParse("${version}")`);
  expect(goDefaults).toContain(`pulumi.PluginDownloadURL("${pluginDownloadUrl}")`);
});

// npm's page of the package resolves the README's other relative links (examples/, sdk/) in the
// repository package.json names; the docs are read where the package is installed too.
test("the npm package ships LICENSE and every page of docs/ its README links to", () => {
  expect(packageJson.files).toContain("LICENSE");
  const shipped = (file: string) =>
    packageJson.files.some((entry) => file === entry || file.startsWith(`${entry}/`));
  const links = [...read("README.md").matchAll(/\]\(((?!https?:|#)[^)#\s]+)/g)].map((match) =>
    path.normalize(match[1] ?? ""),
  );
  expect(links.length).toBeGreaterThan(0);
  expect(links.filter((link) => link.startsWith("docs/") && !shipped(link))).toEqual([]);
});

test("the templates ask for this version of the SDKs and the plugin", () => {
  const [major, minor] = version.split(".");
  expect(read("templates/gpucloud-go/go.mod")).toContain(`sdk/go v${version}\n`);
  expect(read("templates/gpucloud-python/requirements.txt")).toContain(
    `pulumi_gpucloud>=${version},<${major}.${Number(minor) + 1}.0`,
  );
  expect(read("templates/gpucloud-typescript/package.json")).toContain(
    `"pulumi-gpucloud": "^${version}"`,
  );
  const yaml = read("templates/gpucloud-yaml/Pulumi.yaml");
  const versions = [...yaml.matchAll(/^\s+version: (\S+)$/gm)].map((match) => match[1]);
  expect(versions.length).toBeGreaterThan(0);
  expect(new Set(versions)).toEqual(new Set([version]));
  expect(yaml.match(/pluginDownloadURL: (\S+)/g)).toEqual(
    versions.map(() => `pluginDownloadURL: ${pluginDownloadUrl}`),
  );
});

// The Pulumi Registry lists a community package from its schema's metadata and repository.
test("the schema names what the Registry lists: publisher, keywords, repository, a logo here", () => {
  const schema = packageSchema(packageVersion());
  expect([schema.displayName, schema.publisher].every((text) => text.length > 0)).toBe(true);
  expect(schema).toMatchObject({
    license: "Apache-2.0",
    repository: "https://github.com/pulumi-gpucloud/pulumi-gpucloud",
  });
  expect(schema.keywords).toEqual(expect.arrayContaining(["pulumi", "kind/native"]));
  expect(schema.keywords.some((keyword) => keyword.startsWith("category/"))).toBe(true);
  const logo = `${schema.repository.replace("https://github.com/", "https://raw.githubusercontent.com/")}/main/`;
  expect(schema.logoUrl.startsWith(logo)).toBe(true);
  expect(read(schema.logoUrl.slice(logo.length))).toContain("<svg");
});
