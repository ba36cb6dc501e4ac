import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { type TestEmulator, startTestEmulator } from "../support/emulator";
import { createInstance, errorOf, pollUntilRunning, showInstance } from "./helpers";

const RowSchema = z.object({
  instances: z.object({
    actual_status: z.string().nullable(),
    intended_status: z.string(),
    cur_state: z.string(),
    status_msg: z.string().nullable(),
    min_bid: z.number(),
    is_bid: z.boolean(),
  }),
});

describe("bids", () => {
  let emulator: TestEmulator;

  beforeEach(async () => {
    emulator = await startTestEmulator({ allowInsecureWebhooks: true });
  });
  afterEach(async () => {
    await emulator.close();
  });

  const bidPath = (id: number) => `/api/v0/instances/bid_price/${String(id)}/`;
  const row = async (id: number) =>
    RowSchema.parse((await emulator.call("GET", `/api/v0/instances/${String(id)}/`)).body)
      .instances;

  it("changes a bid in place; the price is checked; on-demand and unknown instances are refused", async () => {
    const { call, control } = emulator;
    const id = await createInstance(call, { price: 0.3 });
    expect(await call("PUT", bidPath(id), { client_id: "me", price: 0.35 })).toMatchObject({
      status: 200,
      body: { success: true },
    });
    expect(
      z
        .object({ instances: z.array(z.object({ bidDollarsPerHour: z.number().nullable() })) })
        .parse((await control("GET", "/_emulator/state")).body).instances[0]?.bidDollarsPerHour,
    ).toBe(0.35);

    for (const price of [0, 0.0005, 32.5, -1]) {
      const reply = await call("PUT", bidPath(id), { client_id: "me", price });
      expect(errorOf(reply)).toEqual({ status: 400, error: "invalid_args" });
      expect(reply.body).toMatchObject({
        msg: expect.stringMatching(/bid price [<>]=/) as unknown,
      });
    }
    expect(errorOf(await call("PUT", bidPath(id), { price: "cheap" }))).toEqual({
      status: 400,
      error: "invalid_args",
    });
    expect(errorOf(await call("PUT", bidPath(424242), { client_id: "me", price: 1 }))).toEqual({
      status: 404,
      error: "no_such_instance",
    });
    const onDemand = await createInstance(call);
    expect(errorOf(await call("PUT", bidPath(onDemand), { client_id: "me", price: 1 }))).toEqual({
      status: 400,
      error: "invalid_args",
    });
  });

  it("shows an outbid instance stopped with the outbidding price; a higher bid brings it back", async () => {
    const { call, control } = emulator;
    const id = await createInstance(call, { price: 0.3 });
    await pollUntilRunning(call, id);

    const outbidPath = `/_emulator/instances/${String(id)}/outbid`;
    expect(errorOf(await control("POST", outbidPath, { dollarsPerHour: 0.3 }))).toEqual({
      status: 400,
      error: "invalid_args",
    });
    expect((await control("POST", outbidPath, { dollarsPerHour: 0.5 })).status).toBe(200);

    const lost = await row(id);
    expect(lost).toMatchObject({
      actual_status: "stopped",
      intended_status: "running",
      cur_state: "stopped",
      min_bid: 0.5,
      is_bid: true,
    });
    expect(lost.status_msg).toMatch(/outbid/i);
    expect(lost.status_msg).toContain("0.5");

    // Not enough: it stays outbid.
    await call("PUT", bidPath(id), { client_id: "me", price: 0.45 });
    expect(await row(id)).toMatchObject({ actual_status: "stopped", min_bid: 0.5 });

    await call("PUT", bidPath(id), { client_id: "me", price: 0.6 });
    const back = await row(id);
    expect(back.actual_status).toBe("loading");
    expect(back.min_bid).not.toBe(0.5);
    await pollUntilRunning(call, id);

    const onDemand = await createInstance(call);
    expect(
      errorOf(
        await control("POST", `/_emulator/instances/${String(onDemand)}/outbid`, {
          dollarsPerHour: 9,
        }),
      ),
    ).toEqual({ status: 400, error: "invalid_args" });
    expect(
      errorOf(await control("POST", "/_emulator/instances/99/outbid", { dollarsPerHour: 9 })),
    ).toEqual({ status: 404, error: "no_such_instance" });
  });

  it("takes a null price (the official client without --price) as the winning bid", async () => {
    const { call, control } = emulator;
    const id = await createInstance(call, { price: 0.3 });
    await control("POST", `/_emulator/instances/${String(id)}/outbid`, { dollarsPerHour: 0.7 });
    expect((await call("PUT", bidPath(id), { client_id: "me", price: null })).status).toBe(200);
    expect((await showInstance(call, id))?.actual_status).not.toBe("stopped");
  });

  it("delivers client:outbid to the account's subscribers", async () => {
    const { call, control } = emulator;
    const received: unknown[] = [];
    const server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        received.push(JSON.parse(body));
        res.end("ok");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      await call("POST", "/api/v0/webhooks/", {
        webhook_url: `http://127.0.0.1:${String(port)}/hook`,
        event_types: ["client:outbid"],
      });
      const id = await createInstance(call, { price: 0.3 });
      await control("POST", `/_emulator/instances/${String(id)}/outbid`, { dollarsPerHour: 0.5 });
      for (let i = 0; i < 50 && received.length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(received).toEqual([
        expect.objectContaining({ notif_type: "outbid", instance_id: id }) as unknown,
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
