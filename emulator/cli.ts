#!/usr/bin/env node
import { parseArgs } from "node:util";
import { startEmulator } from "./index";

const USAGE =
  "usage: gpucloud-emulator --port N --api-key K [--host 127.0.0.1] [--state FILE] [--boot-polls N]\n" +
  "                         [--allow-insecure-webhooks] [--market-seed N]\n" +
  "  --market-seed N lists a generated market (300 instance offers, 36 volume offers) beside the seeded asks.\n" +
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
  const emulator = await startEmulator({
    apiKey,
    port: nonNegativeInteger(args.port, "--port", 65535),
    host: args.host,
    stateFile: args.state,
    bootPolls: bootPolls === undefined ? undefined : nonNegativeInteger(bootPolls, "--boot-polls"),
    allowInsecureWebhooks: args["allow-insecure-webhooks"] === true,
    market:
      args["market-seed"] === undefined
        ? undefined
        : { seed: nonNegativeInteger(args["market-seed"], "--market-seed") },
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
