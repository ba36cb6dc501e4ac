import { z } from "zod";

// `readiness`: what create waits for after the instance runs, before it returns (readiness.ts).
// An HTTP answer, a TCP connection, or a line the onstart printed; the timing around it.

const containerPort = (field: string) =>
  z
    .number({ error: `${field} is a container port, a whole number 1-65535` })
    .int(`${field} is a whole number`)
    .min(1, `${field} must be 1-65535`)
    .max(65535, `${field} must be 1-65535`);

const httpCheckSchema = z
  .object(
    {
      port: containerPort("readiness.http.port").describe(
        "The container port to ask (opened by `exposePorts`, `-p` options or the template).",
      ),
      path: z
        .string({ error: "readiness.http.path is a path starting with /, e.g. /health" })
        .startsWith("/", "readiness.http.path must start with /, e.g. /health")
        .max(2048, "readiness.http.path must be at most 2048 characters")
        .describe("The path to GET, starting with `/`; default `/`.")
        .optional(),
      expectStatus: z
        .number({ error: "readiness.http.expectStatus is an HTTP status, 100-599" })
        .int("readiness.http.expectStatus is a whole number")
        .min(100, "readiness.http.expectStatus must be 100-599")
        .max(599, "readiness.http.expectStatus must be 100-599")
        .describe("The status that means ready; default any 2xx.")
        .optional(),
    },
    { error: "readiness.http must be { port, path?, expectStatus? }" },
  )
  .describe("Ready when a GET of `http://<publicIp>:<host port>/<path>` answers the status.")
  .meta({ pulumiType: "ReadinessHttpCheck" });

const tcpCheckSchema = z
  .object(
    { port: containerPort("readiness.tcp.port").describe("The container port to connect to.") },
    { error: "readiness.tcp must be { port }" },
  )
  .describe("Ready when a TCP connection to the port's public address is accepted.")
  .meta({ pulumiType: "ReadinessTcpCheck" });

export const readinessSchema = z
  .object(
    {
      http: httpCheckSchema.optional(),
      tcp: tcpCheckSchema.optional(),
      onstartLine: z
        .string({ error: "readiness.onstartLine is the text of a line the onstart prints" })
        .min(1, "readiness.onstartLine must not be empty")
        .max(1000, "readiness.onstartLine must be at most 1000 characters")
        .refine((line) => !line.includes("\n"), "readiness.onstartLine must be one line")
        .describe(
          "Ready when the instance's logs (what its onstart prints, as the service serves " +
            "them) hold a line containing this text.",
        )
        .optional(),
      initialDelaySeconds: z
        .number({ error: "readiness.initialDelaySeconds is a number of seconds" })
        .min(0, "readiness.initialDelaySeconds must be 0 or more")
        .max(3600, "readiness.initialDelaySeconds must be at most 3600")
        .describe("Seconds to wait after `running` before the first check; default 0.")
        .optional(),
      intervalSeconds: z
        .number({ error: "readiness.intervalSeconds is a number of seconds" })
        .min(0.05, "readiness.intervalSeconds must be at least 0.05")
        .max(300, "readiness.intervalSeconds must be at most 300")
        .describe("Seconds between checks (one check each), 0.05 to 300; default 5.")
        .optional(),
      timeoutSeconds: z
        .number({ error: "readiness.timeoutSeconds is a number of seconds" })
        .positive("readiness.timeoutSeconds must be positive")
        .max(86400, "readiness.timeoutSeconds must be at most 86400")
        .describe(
          "How long checks may fail after the initial delay before the instance counts as " +
            "one that will not run, in seconds; default 600. Create's own " +
            "`createTimeoutSeconds` bounds it too.",
        )
        .optional(),
    },
    { error: "readiness must be an object: { http } or { tcp } or { onstartLine }, with timing" },
  )
  .refine(
    (readiness) =>
      [readiness.http, readiness.tcp, readiness.onstartLine].filter((c) => c !== undefined)
        .length === 1,
    "readiness takes exactly one check: http, tcp or onstartLine",
  )
  .describe(
    "A check create waits for once the instance runs: one of `http` (a port, a path and the " +
      "expected status), `tcp` (a port) or `onstartLine` (a line the onstart prints), with " +
      "`initialDelaySeconds`, `intervalSeconds` and `timeoutSeconds`. Create returns only when " +
      "it passes; an instance that does not " +
      "pass in time is destroyed and another offer tried, as one that exits, and the last " +
      "answer is in the error. Changes in place (it only applies to creates).",
  )
  .meta({ pulumiType: "Readiness" })
  .optional();

export type Readiness = NonNullable<z.infer<typeof readinessSchema>>;

/** The timing of a check, its defaults applied. */
export function readinessTiming(readiness: Readiness): {
  initialDelayMs: number;
  intervalMs: number;
  timeoutMs: number;
} {
  return {
    initialDelayMs: (readiness.initialDelaySeconds ?? 0) * 1000,
    intervalMs: (readiness.intervalSeconds ?? 5) * 1000,
    timeoutMs: (readiness.timeoutSeconds ?? 600) * 1000,
  };
}
