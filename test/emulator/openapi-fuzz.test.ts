import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { type Dispatcher, MockAgent, getGlobalDispatcher, setGlobalDispatcher } from "undici";
import { z } from "zod";
import { SERVICE_ROUTES } from "../../emulator/control/service-routing";
import { type TestEmulator, startTestEmulator } from "../support/emulator";
import { repoRoot } from "../support/repo-root";
import { INSTANCE_ASK_ID, VOLUME_ASK_ID } from "./helpers";

/**
 * The emulator's answers, checked against the service's OpenAPI by a schema fuzzer
 * (schemathesis, pinned: scripts/ensure-schemathesis.sh): every operation the emulator serves by
 * the OpenAPI (each area's `documented` routes marked "openapi") is called with generated valid
 * and invalid requests, and every answer must have a documented status code, a documented
 * content type and a body the response schema takes, and never be a 5xx. The run's settings and
 * the ids it uses are in openapi-fuzz/schemathesis.toml; what it accepts where the OpenAPI is
 * wrong or the emulator deliberately differs is in openapi-fuzz/hooks.py (and emulator/README.md).
 * Deterministic: a fixed seed, one worker, a fresh emulator seeded the same way.
 */

const execFileAsync = promisify(execFile);
const FUZZ_DIR = path.join(__dirname, "openapi-fuzz");
/**
 * The service's published OpenAPI, read where the project keeps its references (it is the
 * service's text, so the repository holds no copy): GPUCLOUD_SERVICE_OPENAPI, else the shared
 * reference beside the clone or on the project's machines (emulator/README.md, "The schema
 * fuzzer").
 */
function serviceOpenApi(): string {
  const candidates = [
    process.env["GPUCLOUD_SERVICE_OPENAPI"],
    path.join(repoRoot, "..", "shared", "reference", "service-openapi.yaml"),
    "/work/shared/reference/service-openapi.yaml",
  ].filter((file): file is string => file !== undefined && file !== "");
  const found = candidates.find((file) => existsSync(file));
  if (found === undefined) {
    throw new Error(
      `the service's OpenAPI is not found (looked at ${candidates.join(", ")}): download the ` +
        "service's published OpenAPI and set GPUCLOUD_SERVICE_OPENAPI to its path",
    );
  }
  return found;
}
/**
 * A longer run by hand: GPUCLOUD_FUZZ_MAX_EXAMPLES=100 (cases per operation and phase; the
 * config's 5 by default), and GPUCLOUD_FUZZ_REPORT=DIR keeps the NDJSON report there.
 */
const MAX_EXAMPLES = process.env["GPUCLOUD_FUZZ_MAX_EXAMPLES"];
const KEPT_REPORT = process.env["GPUCLOUD_FUZZ_REPORT"];
/** The default run takes about 45 s on a loaded 2-core machine; beyond this it is stuck. */
const FUZZ_TIMEOUT_MS = MAX_EXAMPLES === undefined ? 240_000 : 3_600_000;

/** `GET /api/v0/asks/:id/` → the OpenAPI's name of the operation, `GET /api/v0/asks/{…}`. */
function operationPattern(route: string): string {
  const [method = "", url = ""] = route.split(" ");
  const pathPattern = url
    .replace(/\/+$/, "")
    .split("/")
    .map((part) =>
      part.startsWith(":") ? "\\{[^}]+\\}" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
    )
    .join("/");
  return `${method} ${pathPattern}`;
}

const OPENAPI_ROUTES = Object.entries(SERVICE_ROUTES)
  .filter(([, document]) => document === "openapi")
  .map(([route]) => route);

// The parts of schemathesis's NDJSON report the test reads (its events, one a line).
const failureSchema = z.looseObject({
  operation: z.string().nullable().optional(),
  title: z.string(),
  message: z.string(),
});
const checkSchema = z.looseObject({
  name: z.string(),
  status: z.string(),
  failure_info: z.looseObject({ failure: failureSchema }).nullable().optional(),
});
const payloadSchema = z.union([z.looseObject({ $base64: z.string() }), z.string()]).nullish();
const interactionSchema = z.looseObject({
  request: z.looseObject({ method: z.string(), uri: z.string(), body: payloadSchema }),
  response: z
    .looseObject({ status_code: z.number(), content: payloadSchema })
    .nullable()
    .optional(),
});
const eventSchema = z.looseObject({
  LoadingFinished: z
    .looseObject({
      statistic: z.looseObject({ operations: z.looseObject({ selected: z.number() }) }),
    })
    .optional(),
  ScenarioFinished: z
    .looseObject({
      phase: z.string().optional(),
      recorder: z.looseObject({
        label: z.string(),
        checks: z.record(z.string(), z.array(checkSchema)).optional(),
        interactions: z.record(z.string(), interactionSchema).optional(),
      }),
    })
    .optional(),
});

function textOf(payload: z.infer<typeof payloadSchema>, limit = 300): string {
  if (payload === null || payload === undefined) return "(no body)";
  const text =
    typeof payload === "string" ? payload : Buffer.from(payload.$base64, "base64").toString();
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

interface Report {
  /** Operations the fuzzer selected from the OpenAPI. */
  selected: number;
  /** Test cases whose answers were checked. */
  checkedCases: number;
  /** One line per failed check: the operation, the check, why, what was sent and answered. */
  failures: string[];
}

function readReport(file: string): Report {
  const report: Report = { selected: 0, checkedCases: 0, failures: [] };
  const seen = new Set<string>();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const event = eventSchema.parse(JSON.parse(line));
    if (event.LoadingFinished) {
      report.selected = event.LoadingFinished.statistic.operations.selected;
    }
    const recorder = event.ScenarioFinished?.recorder;
    if (!recorder) continue;
    for (const [caseId, checks] of Object.entries(recorder.checks ?? {})) {
      report.checkedCases++;
      for (const check of checks) {
        if (check.status === "success" || check.status === "skip") continue;
        const failure = check.failure_info?.failure;
        const why = failure ? `${failure.title}: ${failure.message}` : check.status;
        const exchange = recorder.interactions?.[caseId];
        const sent = exchange
          ? `sent ${exchange.request.method} ${new URL(exchange.request.uri).pathname}` +
            `${new URL(exchange.request.uri).search} ${textOf(exchange.request.body, 200)}`
          : "";
        const answered = exchange?.response
          ? `answered ${String(exchange.response.status_code)} ${textOf(exchange.response.content)}`
          : "";
        const lineOut = [
          `${failure?.operation ?? recorder.label} — ${check.name}`,
          why.replace(/\s*\n\s*/g, " ").slice(0, 400),
          sent,
          answered,
        ]
          .filter((part) => part !== "")
          .join(" | ");
        // One line per operation, check and reason: a shrunk example repeats its failure.
        const key = `${recorder.label} ${check.name} ${why.split("\n")[0] ?? ""}`;
        if (!seen.has(key)) report.failures.push(lineOut);
        seen.add(key);
      }
    }
  }
  return report;
}

/**
 * The account the fuzzer works on: things to read, change and delete, at the ids
 * openapi-fuzz/schemathesis.toml names (a fresh emulator gives these; checked here).
 */
async function seed(emulator: TestEmulator): Promise<{ spareKeyId: number }> {
  const made = async (method: "POST" | "PUT", url: string, body: object) => {
    const reply = await emulator.call(method, url, body);
    if (reply.status !== 200) {
      throw new Error(`seeding ${method} ${url}: ${String(reply.status)} ${reply.text}`);
    }
    return reply.body;
  };
  const idOf = (body: unknown, field: string) =>
    z.record(z.string(), z.unknown()).parse(body)[field];
  const spare = await made("POST", "/api/v0/auth/apikeys/", {
    name: "spare",
    permissions: { api: { user_read: {} } },
  });
  await made("POST", "/api/v0/ssh/", {
    ssh_key:
      "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl fuzz@seed",
  });
  const instances: unknown[] = [];
  const rent = { client_id: "me", image: "pytorch/pytorch:latest", disk: 16, onstart: "echo hi" };
  instances.push(
    idOf(await made("PUT", `/api/v0/asks/${String(INSTANCE_ASK_ID)}/`, rent), "new_contract"),
  );
  instances.push(
    idOf(await made("PUT", `/api/v0/asks/${String(INSTANCE_ASK_ID)}/`, rent), "new_contract"),
  );
  // Interruptible, for the bid's change.
  instances.push(
    idOf(
      await made("PUT", `/api/v0/asks/${String(INSTANCE_ASK_ID)}/`, { ...rent, price: 0.5 }),
      "new_contract",
    ),
  );
  expect(instances).toEqual([1000001, 1000002, 1000003]);
  // Running, so that their rows carry what only a running container has (ports, addresses).
  for (let poll = 0; poll < 3; poll++) {
    for (const id of instances) await emulator.call("GET", `/api/v0/instances/${String(id)}/`);
  }
  expect(
    idOf(await made("PUT", "/api/v0/volumes/", { id: VOLUME_ASK_ID, size: 10 }), "volume_name"),
  ).toBe("V.5001");
  await made("POST", "/api/v0/template/", { name: "fuzz", image: "pytorch/pytorch" });
  // Receivers the test's stand-in answers (below): nothing leaves this machine.
  for (const name of ["one", "two"]) {
    await made("POST", "/api/v0/webhooks/", {
      name,
      webhook_url: `https://hooks.example.com/${name}`,
      event_types: ["client:low_credit"],
    });
  }
  await made("POST", "/api/v0/secrets/", { key: "FUZZ_SEED", value: "seeded" });
  expect(idOf(await made("POST", "/api/v0/endptjobs/", { endpoint_name: "fuzz" }), "result")).toBe(
    7001,
  );
  const group = { endpoint_name: "fuzz", search_params: "num_gpus=1", cold_workers: 1 };
  expect(idOf(await made("POST", "/api/v0/workergroups/", group), "id")).toBe(9001);
  return { spareKeyId: z.int().parse(idOf(spare, "id")) };
}

/** Runs the fuzzer to its end (killed if the test ends first); its exit code and output. */
function runFuzzer(
  executable: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): { done: Promise<{ code: number | null; output: string }>; stop: () => void } {
  const child = spawn(executable, args, { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const done = new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      resolve({ code, output });
    });
  });
  return {
    done,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}

describe("the emulator's answers as the service's OpenAPI documents them", () => {
  it(
    "gives every operation's answers a documented status, content type and schema under the fuzzer",
    async () => {
      const { stdout } = await execFileAsync(
        "bash",
        [path.join(repoRoot, "scripts", "ensure-schemathesis.sh")],
        { maxBuffer: 1 << 24 },
      );
      const schemathesis = stdout.trim().split("\n").at(-1) ?? "";
      const reportDir = KEPT_REPORT ?? mkdtempSync(path.join(tmpdir(), "openapi-fuzz-"));
      mkdirSync(reportDir, { recursive: true });
      // Webhook deliveries (a test delivery, the only one a request sets off) go to a stand-in
      // in this process, whatever URL the fuzzer registered: nothing reaches past this machine.
      const previousDispatcher: Dispatcher = getGlobalDispatcher();
      const receiver = new MockAgent();
      receiver.disableNetConnect();
      receiver
        .get(() => true)
        .intercept({ path: () => true, method: "POST" })
        .reply(204, "")
        .persist();
      setGlobalDispatcher(receiver);
      // The fuzzer sends what the service does not route on purpose (other methods, odd paths).
      const emulator = await startTestEmulator({ allowUndocumented: true });
      let fuzzer: ReturnType<typeof runFuzzer> | undefined;
      try {
        const { spareKeyId } = await seed(emulator);
        const include = `^(${OPENAPI_ROUTES.map(operationPattern).join("|")})$`;
        const reportFile = path.join(reportDir, "report.ndjson");
        fuzzer = runFuzzer(
          schemathesis,
          [
            "--config-file",
            path.join(FUZZ_DIR, "schemathesis.toml"),
            "run",
            serviceOpenApi(),
            "--include-name-regex",
            include,
            "--report",
            "ndjson",
            "--report-ndjson-path",
            reportFile,
            ...(MAX_EXAMPLES === undefined ? [] : ["--max-examples", MAX_EXAMPLES]),
          ],
          {
            ...process.env,
            GPUCLOUD_FUZZ_URL: emulator.url,
            GPUCLOUD_FUZZ_KEY: emulator.apiKey,
            GPUCLOUD_FUZZ_SPARE_KEY_ID: String(spareKeyId),
            // Hypothesis's caches in the run's folder, not the repository's root: each run
            // starts from nothing.
            HYPOTHESIS_STORAGE_DIRECTORY: path.join(reportDir, "hypothesis"),
            NO_COLOR: "1",
          },
        );
        const { code, output } = await fuzzer.done;
        let report: Report;
        try {
          report = readReport(reportFile);
        } catch (error) {
          throw new Error(
            `the fuzzer wrote no report (exit ${String(code)}):\n${output.slice(-4000)}`,
            {
              cause: error,
            },
          );
        }
        // Every operation the emulator serves by the OpenAPI is one the OpenAPI has.
        expect(report.selected).toBe(OPENAPI_ROUTES.length);
        expect(report.checkedCases).toBeGreaterThan(OPENAPI_ROUTES.length * 10);
        expect(report.failures).toEqual([]);
        // Not a failed check: a config or hook error, say.
        if (code !== 0)
          throw new Error(`the fuzzer exited ${String(code)}:\n${output.slice(-4000)}`);
      } finally {
        fuzzer?.stop();
        await emulator.close();
        setGlobalDispatcher(previousDispatcher);
        await receiver.close();
        if (KEPT_REPORT === undefined) rmSync(reportDir, { recursive: true, force: true });
      }
    },
    FUZZ_TIMEOUT_MS + 60_000,
  );
});
