import { Agent, request } from "undici";
import { z } from "zod";
import { type EmulatorOptions, startEmulator } from "../../emulator";

const requestLogSchema = z.object({
  requests: z.array(
    z.object({
      seq: z.number(),
      atMs: z.number(),
      method: z.string(),
      path: z.string(),
      status: z.number().nullable(),
      fault: z.string().optional(),
      undocumented: z.literal(true).optional(),
      /** Made with an instance's own key (CONTAINER_API_KEY). */
      instanceKey: z.literal(true).optional(),
    }),
  ),
  undocumented: z.number(),
});
// The parts of the emulator's state that tests look at.
const stateSchema = z.object({
  secrets: z.array(z.object({ key: z.string(), value: z.string() })),
  webhooks: z.array(
    z.object({
      id: z.number(),
      name: z.string().nullable(),
      url: z.string(),
      eventTypes: z.array(z.string()),
      secret: z.string(),
    }),
  ),
  volumes: z.array(z.object({ id: z.number(), askId: z.number(), sizeGb: z.number() })),
  instances: z.array(
    z.looseObject({ id: z.number(), label: z.string().nullable(), onstart: z.string().nullable() }),
  ),
  sshKeys: z.array(z.object({ id: z.number(), publicKey: z.string() })),
  user: z.looseObject({ id: z.number() }),
  // Seeded public templates of other users are there from the start.
  templates: z.array(z.looseObject({ id: z.number(), creatorId: z.number() })),
  endpoints: z.array(z.looseObject({ id: z.number() })),
  workerGroups: z.array(z.looseObject({ id: z.number() })),
  // Instances show `overlay` ({overlayId, address} or null) and `mounts` (the `-v` ones).
  overlays: z.array(
    z.looseObject({ id: z.number(), name: z.string(), clusterId: z.number(), subnet: z.string() }),
  ),
  networkVolumes: z.array(
    z.looseObject({
      id: z.number(),
      askId: z.number(),
      clusterId: z.number(),
      sizeGb: z.number(),
      label: z.string().nullable(),
    }),
  ),
});
export type EmulatorState = z.infer<typeof stateSchema>;

export type LoggedRequest = z.infer<typeof requestLogSchema>["requests"][number];

export interface BootOutcome {
  status: "running" | "exited" | "unknown" | "offline";
  afterPolls?: number;
  afterSeconds?: number;
  statusMsg?: string;
}

/** A stand-in app behind an instance's mapped port (emulator/instances/port-server.ts). */
export interface StandInApp {
  /** Null: never ready. */
  readyAfterSeconds?: number | null;
  notReadyStatus?: number;
}

export interface FaultKind {
  rate?: number;
  next?: number;
  methods?: string[];
  /** Path prefixes, e.g. "/api/v0/asks/". */
  paths?: string[];
}

export interface Faults {
  latencyMs?: number;
  tooManyRequests?: FaultKind;
  serverErrors?: FaultKind & { status?: 500 | 502 | 503 | 504 };
  drops?: FaultKind & { afterHandling?: boolean };
  seed?: number;
  searchIgnoresFilter?: { field: string };
  offerTakenAfterSearch?: { next: number };
  overlayAddressSkipped?: { next: number };
}

export type Method = "GET" | "POST" | "PUT" | "DELETE" | "PATCH";

/** The emulator's clock (emulator/shared/clock.ts): where it is and whether it runs. */
export interface ClockReading {
  nowSeconds: number;
  frozen: boolean;
}
const clockReadingSchema = z.object({ nowSeconds: z.number(), frozen: z.boolean() });

/** A payment, transfer or payout of the account (POST /_emulator/invoices). */
export interface NewInvoice {
  amountDollars: number;
  type?: "credit" | "transfer" | "payout" | "refund" | "reserved";
  service?: string;
  source?: string;
  description?: string;
  createdAtSeconds?: number;
  paidAtSeconds?: number | null;
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  body: unknown;
}

/** key null sends no Authorization header. */
export type Call = (
  method: Method,
  path: string,
  body?: unknown,
  key?: string | null,
) => Promise<Reply>;

/** A running emulator with its test controls (`/_emulator/`). */
export interface TestEmulator {
  readonly url: string;
  readonly apiKey: string;
  /** An /api/ call with the emulator's key unless told otherwise; the reply as it came. */
  call: Call;
  /** A call without a key, path in full (`/_emulator/state`); the reply, whatever its status. */
  control: (method: Method, path: string, body?: unknown) => Promise<Reply>;
  /** Exactly these headers and this body text. */
  raw: (
    method: Method,
    path: string,
    headers: Record<string, string>,
    text?: string,
  ) => Promise<Reply>;
  /** Requests to the API (method, path, status), oldest first. */
  requests(): Promise<LoggedRequest[]>;
  /** Requests that change something (POST, PUT, DELETE; offer searches excepted). */
  writes(): Promise<LoggedRequest[]>;
  clearRequests(): Promise<void>;
  /** The whole server state as JSON text, secrets included, to search for leaks. */
  stateText(): Promise<string>;
  state(): Promise<EmulatorState>;
  /** The secrets the emulator holds: key → plaintext value. */
  secrets(): Promise<Record<string, string>>;
  setFaults(faults: Faults): Promise<void>;
  clearFaults(): Promise<void>;
  queueBoots(outcomes: BootOutcome[]): Promise<void>;
  /** With `servePorts`: the stand-in apps the next instances with a mapped port take. */
  queueApps(apps: StandInApp[]): Promise<void>;
  /** With runOnstart: what the instance's stand-in nvidia-smi reports, for every GPU or each. */
  setGpuUtilization(instanceId: number, percent: number | number[]): Promise<void>;
  setUser(user: { ssh_key?: string; credit?: number; email?: string }): Promise<void>;
  addKey(key: string, permissions?: { api: Record<string, object> }): Promise<void>;
  revokeKey(key: string): Promise<void>;
  /** An ask leaves the market, as if someone else rented it. */
  removeAsk(kind: "instance" | "volume", id: number): Promise<void>;
  /**
   * Moves the emulator's clock (never back) and freezes or runs it: `{ frozen: true }` stops it
   * where it is, `nowSeconds` or `advanceSeconds` moves it. Answers where it is.
   */
  clock(change?: {
    nowSeconds?: number;
    advanceSeconds?: number;
    frozen?: boolean;
  }): Promise<ClockReading>;
  addInvoice(invoice: NewInvoice): Promise<void>;
  /** Changes an ask's price (or reliability). */
  changeAsk(
    kind: "instance" | "volume",
    id: number,
    change: { dollarsPerHour?: number; storageCostPerGbMonth?: number; reliability?: number },
  ): Promise<void>;
  close(): Promise<void>;
}

const writeMethods = new Set(["POST", "PUT", "DELETE"]);
// Offer searches are POSTs that change nothing: a check reads offers at preview.
const offerSearches = new Set([
  "/api/v0/bundles/",
  "/api/v0/volumes/search/",
  "/api/v0/network_volumes/search/",
]);

export interface TestEmulatorOptions extends Partial<EmulatorOptions> {
  /**
   * Closing does not fail on requests outside the service's documents: for the emulator's own
   * tests of how it refuses them, which send them on purpose.
   */
  readonly allowUndocumented?: boolean;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Strict (the service's documented calls only) unless a test says otherwise; closing it fails
 * when anything was sent outside them, also a call whose refusal the caller took in its stride
 * (a DELETE answered 404 reads as "already gone"). Real HTTP on a free port, not app.inject:
 * inject loads light-my-request, whose ESM-only dependency Jest cannot require without
 * --experimental-vm-modules. The key is a random one unless the test gives one.
 */
export async function startTestEmulator(options: TestEmulatorOptions = {}): Promise<TestEmulator> {
  const { allowUndocumented = false, ...emulatorOptions } = options;
  const apiKey = options.apiKey ?? `test-key-${Math.random().toString(36).slice(2)}`;
  // The small market (the seeded asks, rentable any number of times) unless a test asks for one.
  const running = await startEmulator({
    market: false,
    strict: true,
    ...emulatorOptions,
    apiKey,
    port: 0,
    host: "127.0.0.1",
  });
  const dispatcher = new Agent();

  const raw = async (
    method: Method,
    path: string,
    headers: Record<string, string>,
    text?: string,
  ): Promise<Reply> => {
    const response = await request(`${running.url}${path}`, {
      method,
      headers,
      body: text,
      dispatcher,
    });
    const received = await response.body.text();
    return {
      status: response.statusCode,
      headers: response.headers,
      text: received,
      body: parseJson(received),
    };
  };
  const sendJson = (method: Method, path: string, body: unknown, key: string | null) => {
    const headers: Record<string, string> = {};
    if (key !== null) headers.authorization = `Bearer ${key}`;
    if (body === undefined) return raw(method, path, headers);
    headers["content-type"] = "application/json";
    return raw(method, path, headers, JSON.stringify(body));
  };
  const control = (method: Method, path: string, body?: unknown) =>
    sendJson(method, path, body, null);
  // The typed controls below: a refusal is a broken test, not an answer to look at.
  const controlText = async (method: Method, path: string, body?: unknown) => {
    const reply = await control(method, `/_emulator/${path}`, body);
    if (reply.status >= 300) {
      throw new Error(
        `emulator control ${method} ${path}: HTTP ${String(reply.status)} ${reply.text}`,
      );
    }
    return reply.text;
  };
  const send = async (method: Method, path: string, body?: unknown): Promise<void> => {
    await controlText(method, path, body);
  };
  const state = async () => stateSchema.parse(JSON.parse(await controlText("GET", "state")));
  const requestLog = async () =>
    requestLogSchema.parse(JSON.parse(await controlText("GET", "requests")));
  const requests = async () => (await requestLog()).requests;
  return {
    url: running.url,
    apiKey,
    call: (method, path, body, key = apiKey) => sendJson(method, path, body, key),
    control,
    raw,
    requests,
    writes: async () =>
      (await requests()).filter(
        (entry) => writeMethods.has(entry.method) && !offerSearches.has(entry.path),
      ),
    clearRequests: () => send("DELETE", "requests"),
    stateText: () => controlText("GET", "state"),
    state,
    secrets: async () =>
      Object.fromEntries((await state()).secrets.map((secret) => [secret.key, secret.value])),
    setFaults: (faults) => send("PUT", "faults", faults),
    clearFaults: () => send("DELETE", "faults"),
    queueBoots: (outcomes) => send("PUT", "boots", { outcomes }),
    queueApps: (apps) => send("PUT", "apps", { apps }),
    setGpuUtilization: (instanceId, percent) =>
      send(
        "PUT",
        `instances/${String(instanceId)}/gpu-utilization`,
        Array.isArray(percent) ? { percents: percent } : { percent },
      ),
    setUser: (user) => send("PUT", "user", user),
    addKey: (key, permissions) =>
      send("POST", "keys", permissions ? { key, permissions } : { key }),
    revokeKey: (key) => send("DELETE", `keys/${encodeURIComponent(key)}`),
    removeAsk: (kind, id) => send("DELETE", `asks/${kind}/${String(id)}`),
    changeAsk: (kind, id, change) => send("PATCH", `asks/${kind}/${String(id)}`, change),
    clock: async (change) =>
      clockReadingSchema.parse(
        JSON.parse(await controlText(change ? "PUT" : "GET", "clock", change)),
      ),
    addInvoice: (invoice) => send("POST", "invoices", invoice),
    close: async () => {
      let log: z.infer<typeof requestLogSchema> | undefined;
      try {
        log = await requestLog();
      } finally {
        await dispatcher.close();
        await running.close();
      }
      if (log.undocumented > 0 && options.strict !== false && !allowUndocumented) {
        const seen = log.requests
          .filter((entry) => entry.undocumented)
          .map((entry) => `${entry.method} ${entry.path} ${String(entry.status)}`);
        throw new Error(
          `${String(log.undocumented)} request(s) to the emulator were outside what the service ` +
            `documents: ${seen.join("; ") || "(cleared from the log)"}`,
        );
      }
    },
  };
}
