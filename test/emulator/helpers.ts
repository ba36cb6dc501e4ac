import { z } from "zod";
import type { Call, Reply } from "../support/emulator";

// What the emulator's own tests share beside test/support/emulator.ts: a fixed key (for the
// files that send it by hand or look for it in what the emulator says), the seeded asks, and the
// calls many of them make.

/** The full-access key of the files that start their emulator with `{ apiKey: API_KEY }`. */
export const API_KEY = "test-key-3f9a1c7e5b2d";
export const INSTANCE_ASK_ID = 31001;
export const VOLUME_ASK_ID = 21001;

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

/** An endpoint named `llm` unless `body` says otherwise: its id. */
export async function createEndpoint(call: Call, body: object = {}): Promise<number> {
  const reply = await call("POST", "/api/v0/endptjobs/", { endpoint_name: "llm", ...body });
  return z.object({ result: z.int() }).parse(reply.body).result;
}
