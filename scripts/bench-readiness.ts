/**
 * `npm run bench:readiness [-- --interval 5]`: what an Instance's `readiness` wait costs, for
 * docs/maintainers/performance.md: the requests to the service an `up` makes with an HTTP check
 * and without one (the goal: none added, status reads shared as before), and the time from the
 * app's readiness to `up` returning (the goal: at most one interval). The emulator serves the
 * instance's port (servePorts); its stand-in app is made ready by hand once the wait has begun.
 * A measurement, not a test: nothing asserts a figure.
 */
import { parseArgs } from "node:util";
import { startTestEmulator, type TestEmulator } from "../test/support/emulator";
import { emulatorConfig, program } from "../test/support/programs";
import { withStack } from "../test/support/pulumi-stack";

const { values: args } = parseArgs({ options: { interval: { type: "string", default: "5" } } });
const intervalSeconds = Number(args.interval ?? "5");

const server = (readiness: boolean) =>
  program(`
new gpucloud.Instance("server", {
  askId: 31001,
  image: "vllm/vllm-openai",
  diskGb: 20,
  pollIntervalSeconds: 3,
  exposePorts: [8000],
  ${readiness ? `readiness: { http: { port: 8000, path: "/health" }, intervalSeconds: ${String(intervalSeconds)} },` : ""}
});`);

const apiRequests = async (emulator: TestEmulator) =>
  (await emulator.requests()).filter((request) => request.path.startsWith("/api/")).length;

/** Seconds an instance takes to boot (the emulator's `bootSeconds`, no jitter). */
const BOOT_SECONDS = 10;

/**
 * Makes the instance's app ready once its wait has begun (it has booted, and a few probes went
 * by); returns when. Timed from the rent, not by reading the instance: a read would count among
 * the requests measured.
 */
async function readyLater(emulator: TestEmulator): Promise<number> {
  for (;;) {
    const [instance] = (await emulator.state()).instances;
    if (instance !== undefined) {
      const waitMs = (BOOT_SECONDS + 2.5 * intervalSeconds) * 1000;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      await emulator.control("PUT", `/_emulator/instances/${String(instance.id)}/app`, {
        readyAfterSeconds: 0,
      });
      return Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function measure(readiness: boolean): Promise<void> {
  const emulator = await startTestEmulator({
    servePorts: true,
    bootSeconds: BOOT_SECONDS,
    market: false,
  });
  try {
    if (readiness) await emulator.queueApps([{ readyAfterSeconds: null }]);
    await withStack(
      { program: server(readiness), config: emulatorConfig(emulator) },
      async ({ stack }) => {
        const ready = readiness ? readyLater(emulator) : Promise.resolve(undefined);
        await stack.up();
        const returnedAt = Date.now();
        const readyAt = await ready;
        const requests = await apiRequests(emulator);
        const lag =
          readyAt === undefined
            ? ""
            : `, up returned ${String((returnedAt - readyAt) / 1000)} s after the app turned ready`;
        console.log(
          `${readiness ? "with" : "without"} readiness: ${String(requests)} requests to the service${lag}`,
        );
      },
    );
  } finally {
    await emulator.close();
  }
}

async function main(): Promise<void> {
  console.log(
    `readiness benchmark: one instance, 10 s boot, intervalSeconds ${String(intervalSeconds)}`,
  );
  await measure(false);
  await measure(true);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
