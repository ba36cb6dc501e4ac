/**
 * `npm run bench:plan-prices [-- --sizes 10,200] [-- --repeat R]`: what a `pulumi preview` of N
 * instances costs (wall time, API requests), for the README's figures on the plan's prices
 * (provider/pricing). Half the instances rent by ask (three ask lists), half by one of two
 * offer queries: check already searches each ask list once per run, and pricing adds one search
 * per distinct query, none per resource. Run it on a checkout before the prices to compare.
 * Prints one JSON line per size. A measurement, not a test: nothing asserts a timing.
 */
import { parseArgs } from "node:util";
import { startTestEmulator } from "../test/support/emulator";
import { emulatorConfig } from "../test/support/programs";
import { withStack } from "../test/support/pulumi-stack";

const { values } = parseArgs({
  options: { sizes: { type: "string", default: "10,200" }, repeat: { type: "string" } },
  strict: true,
});
const sizes = (values.sizes ?? "10,200").split(",").map(Number);
const repeat = Number(values.repeat ?? 3);

function instancesProgram(count: number): string {
  return `"use strict";
const gpucloud = require("pulumi-gpucloud");
const asks = [[31001], [31002], [31002, 31003]];
const queries = [{ gpuName: "RTX 4090" }, { gpuName: { in: ["RTX 3090", "A100 SXM4"] } }];
for (let n = 0; n < ${count}; n++) {
  const rent = n % 2 === 0
    ? { askIds: asks[(n / 2) % asks.length] }
    : { offerQuery: queries[((n - 1) / 2) % queries.length] };
  new gpucloud.Instance("i" + n, { ...rent, image: "img", diskGb: 10 });
}
`;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const emulator = await startTestEmulator({ market: { seed: 1 } });
  try {
    for (const n of sizes) {
      await withStack(
        { program: instancesProgram(n), config: emulatorConfig(emulator) },
        async ({ stack }) => {
          await stack.preview(); // warm: the language host, the package, the plugin cache
          const times: number[] = [];
          let requests = 0;
          let searches = 0;
          for (let run = 0; run < repeat; run++) {
            await emulator.clearRequests();
            const started = performance.now();
            await stack.preview();
            times.push(performance.now() - started);
            const logged = await emulator.requests();
            requests = logged.length;
            searches = logged.filter((r) => r.path.startsWith("/api/v0/bundles")).length;
          }
          process.stdout.write(
            `${JSON.stringify({ n, previewMs: Math.round(median(times) ?? 0), times: times.map(Math.round), requests, searches })}\n`,
          );
        },
      );
    }
  } finally {
    await emulator.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
