// One CommonJS file holding a program (its compiled code in dist/, what the npm package ships)
// and every dependency (esbuild), with the version written in: a standalone executable has no
// package.json. Shared by scripts/package-plugin.mjs (Node.js single executables, the tests')
// and scripts/release.mjs (Bun executables, the release's).
import path from "node:path";
import esbuild from "esbuild";

export const root = path.resolve(import.meta.dirname, "..");

// The emulator first, the plugin last: callers read the plugin's path from the last line.
export const programs = [
  { name: "gpucloud-emulator", entry: "dist/emulator/cli.js" },
  { name: "pulumi-resource-gpucloud", entry: "dist/provider/native/main.js" },
];

/** The bundle's bytes; `nodeVersion` is the syntax level esbuild may emit. */
export async function bundle(entry, version, nodeVersion = process.versions.node) {
  const result = await esbuild.build({
    entryPoints: [path.join(root, entry)],
    bundle: true,
    write: false,
    platform: "node",
    format: "cjs",
    target: `node${nodeVersion}`,
    define: { GPUCLOUD_BUNDLED_VERSION: JSON.stringify(version) },
    // The Pulumi SDK's closure serializer (never run by the plugin) resolves npm's node-gyp.
    logOverride: { "require-resolve-not-external": "silent" },
    logLevel: "warning",
  });
  const [output] = result.outputFiles;
  return output.contents;
}
