#!/usr/bin/env node
import { parseArgs } from "node:util";
import { startEmulator } from "./index";

const USAGE =
  "usage: gpucloud-emulator --port N --api-key K [--host 127.0.0.1] [--state FILE]\n" +
  "                         [--boot-polls N | --boot-seconds S[:JITTER]] [--rate-limits off|documented]\n" +
  "                         [--market-seed N | --small-market] [--allow-insecure-webhooks]\n" +
  "                         [--worker-release-seconds S] [--run-onstart] [--serve-ports]\n" +
  "                         [--strict]\n" +
  "  --boot-seconds S[:J]  instances boot S seconds after they are created (± up to J), whoever polls.\n" +
  "  --rate-limits documented  each endpoint limited per key at the threshold the service documents.\n" +
  "  The market: 300 generated instance offers and 36 volume offers beside the seeded asks, renting\n" +
  "  exclusive (--market-seed N picks another); --small-market lists the seeded asks alone.\n" +
  "  --worker-release-seconds S  workers of a deleted worker group or endpoint leave the account S seconds\n" +
  "  later (default 1).\n" +
  "  --run-onstart  run each running instance's onstart here (sh -c, in a temporary directory of its\n" +
  "  own, with its container's environment: CONTAINER_ID, CONTAINER_API_KEY, its env, PUBLIC_IPADDR,\n" +
  "  VAST_TCP_PORT_*); ended when it stops or is destroyed. Its output is what the logs endpoint serves.\n" +
  "  --serve-ports  each instance's -p TCP ports answer on 127.0.0.1 (its public_ipaddr), at the host ports\n" +
  "  its row maps: a stand-in app, or with --run-onstart the onstart's own server on $VAST_TCP_PORT_<port>.\n" +
  "  --strict  refuse what the service does not document (405 or 404, as its router answers); also\n" +
  "  GPUCLOUD_EMULATOR_STRICT=1.\n" +
  "  --api-key may be replaced by the GPUCLOUD_API_KEY environment variable; --port 0 picks a free port.";

function usageError(message: string): never {
  process.stderr.write(`gpucloud-emulator: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function nonNegativeInteger(text: string, flag: string, max = Number.MAX_SAFE_INTEGER): number {
  const value = Number(text);
  if (!/^[0-9]+$/.test(text) || value > max)
    usageError(`${flag} must be an integer from 0 to ${max}`);
  return value;
}

function parseCommandLine() {
  try {
    return parseArgs({
      options: {
        port: { type: "string" },
        "api-key": { type: "string" },
        host: { type: "string", default: "127.0.0.1" },
        state: { type: "string" },
        "boot-polls": { type: "string" },
        "allow-insecure-webhooks": { type: "boolean" },
        "market-seed": { type: "string" },
        "small-market": { type: "boolean" },
        "boot-seconds": { type: "string" },
        "rate-limits": { type: "string" },
        "worker-release-seconds": { type: "string" },
        "run-onstart": { type: "boolean" },
        "serve-ports": { type: "boolean" },
        strict: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (error) {
    return usageError(error instanceof Error ? error.message : String(error));
  }
}

async function main(): Promise<void> {
  const args = parseCommandLine();
  if (args.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const apiKey = args["api-key"] ?? process.env.GPUCLOUD_API_KEY;
  if (apiKey === undefined || apiKey === "") {
    usageError("an API key is required: pass --api-key K or set GPUCLOUD_API_KEY");
  }
  if (args.port === undefined) usageError("--port is required (0 picks a free port)");
  const bootPolls = args["boot-polls"];
  const bootSeconds = args["boot-seconds"];
  const boot =
    bootSeconds === undefined
      ? undefined
      : /^([0-9]+(?:\.[0-9]+)?)(?::([0-9]+(?:\.[0-9]+)?))?$/.exec(bootSeconds);
  if (bootSeconds !== undefined && !boot)
    usageError("--boot-seconds must be S or S:JITTER, in seconds, e.g. 20 or 20:5");
  if (boot && bootPolls !== undefined) usageError("give --boot-polls or --boot-seconds, not both");
  const rateLimits = args["rate-limits"] ?? "off";
  if (rateLimits !== "off" && rateLimits !== "documented")
    usageError("--rate-limits must be off or documented");
  const releaseText = args["worker-release-seconds"];
  const workerReleaseSeconds = releaseText === undefined ? undefined : Number(releaseText);
  if (
    releaseText !== undefined &&
    (!/^[0-9]+(\.[0-9]+)?$/.test(releaseText) || Number(releaseText) > 3600)
  )
    usageError("--worker-release-seconds must be a number of seconds from 0 to 3600");
  if (args["small-market"] === true && args["market-seed"] !== undefined)
    usageError("give --market-seed or --small-market, not both");
  const emulator = await startEmulator({
    apiKey,
    port: nonNegativeInteger(args.port, "--port", 65535),
    host: args.host,
    stateFile: args.state,
    bootPolls: bootPolls === undefined ? undefined : nonNegativeInteger(bootPolls, "--boot-polls"),
    allowInsecureWebhooks: args["allow-insecure-webhooks"] === true,
    ...(boot ? { bootSeconds: Number(boot[1]), bootJitterSeconds: Number(boot[2] ?? 0) } : {}),
    rateLimits,
    workerReleaseSeconds,
    runOnstart: args["run-onstart"] === true,
    servePorts: args["serve-ports"] === true,
    strict: args.strict === true || process.env.GPUCLOUD_EMULATOR_STRICT === "1",
    market:
      args["small-market"] === true
        ? false
        : {
            seed:
              args["market-seed"] === undefined
                ? 1
                : nonNegativeInteger(args["market-seed"], "--market-seed"),
          },
  });
  process.stdout.write(`gpucloud-emulator listening on ${emulator.url}\n`);

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    emulator.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`gpucloud-emulator: failed to close: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error: unknown) => {
  // Startup failures (port in use, unreadable state file) name their cause, never the key.
  process.stderr.write(
    `gpucloud-emulator: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
