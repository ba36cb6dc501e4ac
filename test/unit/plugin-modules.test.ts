import { execFileSync } from "node:child_process";
import path from "node:path";
import { z } from "zod";

// The native plugin starts for every operation of a Python, Go or YAML program. It needs the
// SDK's protocol modules and a few of its parts (resources, outputs, metadata), never its
// index: the index loads the Automation API and the closure serializer with TypeScript, about
// half a second of CPU at each start (the plugin's own modules load in about as much).
// Built by `npm test`'s build (and `npm run test:fast`'s).
const server = path.resolve(__dirname, "..", "..", "dist", "provider", "native", "server.js");

it("the native plugin's modules load none of the SDK's index, Automation API or TypeScript", () => {
  const loaded = z
    .array(z.string())
    .parse(
      JSON.parse(
        execFileSync(
          process.execPath,
          [
            "-e",
            `require(${JSON.stringify(server)}); console.log(JSON.stringify(Object.keys(require.cache)))`,
          ],
          { encoding: "utf8" },
        ),
      ),
    );
  const sdk = loaded
    .map((file) => /node_modules[\\/]@pulumi[\\/]pulumi[\\/](.*)$/.exec(file)?.[1])
    .filter((file) => file !== undefined)
    .map((file) => file.replace(/\\/g, "/"));
  expect(sdk).toEqual(expect.arrayContaining(["resource.js", "proto/provider_grpc_pb.js"]));
  expect(sdk.filter((file) => /^(index\.js|automation\/|runtime\/closure\/)/.test(file))).toEqual(
    [],
  );
  expect(loaded.filter((file) => /node_modules[\\/]typescript[\\/]/.test(file))).toEqual([]);
});
