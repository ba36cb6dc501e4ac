import { Agent, request } from "undici";
import { z } from "zod";
import { type EmulatorOptions, startEmulator } from "../../emulator";

export const API_KEY = "test-key-3f9a1c7e5b2d";
export const INSTANCE_ASK_ID = 31001;
export const VOLUME_ASK_ID = 21001;

export type Method = "GET" | "POST" | "PUT" | "DELETE" | "PATCH";

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

export interface TestEmulator {
  url: string;
  /** An /api/ call with the test key unless told otherwise. */
  call: Call;
  /** A /_emulator/ call: no key. */
  control: (method: Method, path: string, body?: unknown) => Promise<Reply>;
  /** Exactly these headers and this body text. */
  raw: (
    method: Method,
    path: string,
    headers: Record<string, string>,
    text?: string,
  ) => Promise<Reply>;
  close(): Promise<void>;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Real HTTP on a free port, not app.inject: inject loads light-my-request, whose ESM-only
 * dependency Jest cannot require without --experimental-vm-modules.
 */
export async function startTestEmulator(
  options: Partial<EmulatorOptions> = {},
): Promise<TestEmulator> {
  const emulator = await startEmulator({
    apiKey: API_KEY,
    market: false,
    strict: true,
    ...options,
  });
  const dispatcher = new Agent();
  const raw = async (
    method: Method,
    path: string,
    headers: Record<string, string>,
    text?: string,
  ): Promise<Reply> => {
    const response = await request(`${emulator.url}${path}`, {
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
  const send = (method: Method, path: string, body: unknown, key: string | null) => {
    const headers: Record<string, string> = {};
    if (key !== null) headers.authorization = `Bearer ${key}`;
    if (body === undefined) return raw(method, path, headers);
    headers["content-type"] = "application/json";
    return raw(method, path, headers, JSON.stringify(body));
  };
  return {
    url: emulator.url,
    call: (method, path, body, key = API_KEY) => send(method, path, body, key),
    control: (method, path, body) => send(method, path, body, null),
    raw,
    close: async () => {
      await dispatcher.close();
      await emulator.close();
    },
  };
}

export function errorOf(reply: Reply): { status: number; error: string } {
  const body = z.object({ success: z.literal(false), error: z.string(), msg: z.string() });
  return { status: reply.status, error: body.parse(reply.body).error };
}

export async function createInstance(call: Call, body: object = {}): Promise<number> {
  const reply = await call("PUT", `/api/v0/asks/${String(INSTANCE_ASK_ID)}/`, {
    client_id: "me",
    image: "pytorch/pytorch:latest",
    disk: 16,
    ...body,
  });
  return z.object({ new_contract: z.int() }).parse(reply.body).new_contract;
}

const ShownInstanceSchema = z.object({
  id: z.int(),
  actual_status: z.string().nullable(),
  status_msg: z.string().nullable(),
  ssh_host: z.string().nullable(),
  ssh_port: z.int().nullable(),
  public_ipaddr: z.string().nullable(),
  label: z.string().nullable(),
});

export async function showInstance(call: Call, id: number) {
  const reply = await call("GET", `/api/v0/instances/${String(id)}/?owner=me`);
  return z.object({ instances: ShownInstanceSchema.nullable() }).parse(reply.body).instances;
}

export async function pollUntilRunning(call: Call, id: number, maxPolls = 20) {
  for (let poll = 0; poll < maxPolls; poll++) {
    if ((await showInstance(call, id))?.actual_status === "running") return;
  }
  throw new Error(`instance ${String(id)} was not running after ${String(maxPolls)} polls`);
}
