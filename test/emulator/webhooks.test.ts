import { z } from "zod";
import { type TestEmulator, startTestEmulator } from "../support/emulator";
import { errorOf } from "./helpers";

const CreatedSchema = z.object({
  success: z.literal(true),
  webhook: z.object({ id: z.int(), webhook_secret: z.string().min(16) }),
});

describe("webhooks", () => {
  let emulator: TestEmulator;

  beforeEach(async () => {
    emulator = await startTestEmulator();
  });
  afterEach(async () => {
    await emulator.close();
  });

  const valid = {
    webhook_url: "https://example.com/hook",
    event_types: ["client:low_credit"],
  };

  it("creates with a secret shown once, lists, updates and deletes", async () => {
    const { call, control } = emulator;
    const created = await call("POST", "/api/v0/webhooks/", { ...valid, name: "ops" });
    expect(created.body).toMatchObject({
      success: true,
      webhook: {
        id: 1,
        name: "ops",
        webhook_url: valid.webhook_url,
        event_types: valid.event_types,
        created_at: expect.any(Number) as unknown,
      },
    });
    const secret = CreatedSchema.parse(created.body).webhook.webhook_secret;
    const second = CreatedSchema.parse((await call("POST", "/api/v0/webhooks/", valid)).body);
    expect(second.webhook.id).toBe(2);

    const listed = await call("GET", "/api/v0/webhooks/");
    expect(listed.body).toMatchObject({
      success: true,
      webhooks: [
        { id: 1, name: "ops" },
        { id: 2, name: null },
      ],
    });

    const updated = await call("PUT", "/api/v0/webhooks/1/", { event_types: ["client:outbid"] });
    expect(updated.body).toMatchObject({
      success: true,
      webhook: {
        id: 1,
        name: "ops",
        webhook_url: valid.webhook_url,
        event_types: ["client:outbid"],
      },
    });
    expect(await call("PUT", "/api/v0/webhooks/1", { name: "renamed" })).toMatchObject({
      body: { webhook: { name: "renamed" } },
    });

    for (const reply of [listed, updated]) expect(reply.text).not.toContain(secret);
    expect((await control("GET", "/_emulator/state")).text).toContain(secret);

    expect((await call("DELETE", "/api/v0/webhooks/1/")).body).toEqual({ success: true });
    expect(errorOf(await call("DELETE", "/api/v0/webhooks/1/"))).toEqual({
      status: 404,
      error: "no_such_webhook",
    });
    expect((await call("GET", "/api/v0/webhooks/")).body).toMatchObject({ webhooks: [{ id: 2 }] });
  });

  it.each([
    [{ ...valid, webhook_url: "http://example.com/hook" }, "webhook_url"],
    [{ ...valid, webhook_url: "not a url" }, "webhook_url"],
    [{ ...valid, webhook_url: `https://example.com/${"a".repeat(2048)}` }, "webhook_url"],
    [{ event_types: valid.event_types }, "webhook_url"],
    [{ ...valid, event_types: [] }, "event_types"],
    [{ ...valid, event_types: ["Instance.Created"] }, "event_types"],
    [{ ...valid, event_types: [3] }, "event_types"],
    [{ ...valid, event_types: "instance.created" }, "event_types"],
    [{ ...valid, name: "n".repeat(121) }, "name"],
    [{ ...valid, name: "two\nlines" }, "name"],
    [{ ...valid, event_types: ["client:no_such_event"] }, "client:no_such_event"],
    [{ ...valid, webhook_url: "https://10.0.0.8/hook" }, "webhook_url"],
  ])("rejects create %j with invalid_args naming %s", async (body, field) => {
    const reply = await emulator.call("POST", "/api/v0/webhooks/", body);
    expect(errorOf(reply)).toEqual({ status: 400, error: "invalid_args" });
    expect(reply.body).toMatchObject({ msg: expect.stringContaining(field) as unknown });
  });

  it("validates updates and answers unknown ids with 404", async () => {
    const { call } = emulator;
    await call("POST", "/api/v0/webhooks/", valid);
    const bad = await call("PUT", "/api/v0/webhooks/1/", { webhook_url: "ftp://x" });
    expect(errorOf(bad)).toEqual({ status: 400, error: "invalid_args" });
    expect(errorOf(await call("PUT", "/api/v0/webhooks/1/", {}))).toEqual({
      status: 400,
      error: "invalid_args",
    });
    expect(errorOf(await call("PUT", "/api/v0/webhooks/9/", { name: "x" }))).toEqual({
      status: 404,
      error: "no_such_webhook",
    });
    expect(errorOf(await call("DELETE", "/api/v0/webhooks/abc/"))).toEqual({
      status: 404,
      error: "no_such_webhook",
    });
  });

  it("answers JSON with exactly application/json, as the official client requires", async () => {
    const { call } = emulator;
    for (const reply of [
      await call("GET", "/api/v0/notification-types/"),
      await call("POST", "/api/v0/webhooks/", valid),
      await call("DELETE", "/api/v0/webhooks/99/"),
    ]) {
      expect(reply.headers["content-type"]).toBe("application/json");
    }
  });

  it("rotates the secret of a known webhook only", async () => {
    const { call } = emulator;
    const created = CreatedSchema.parse((await call("POST", "/api/v0/webhooks/", valid)).body);
    const rotated = CreatedSchema.parse(
      (await call("POST", `/api/v0/webhooks/${created.webhook.id}/rotate-secret/`)).body,
    );
    expect(rotated.webhook.id).toBe(created.webhook.id);
    expect(rotated.webhook.webhook_secret).not.toBe(created.webhook.webhook_secret);
    expect(errorOf(await call("POST", "/api/v0/webhooks/77/rotate-secret/"))).toEqual({
      status: 404,
      error: "no_such_webhook",
    });
    expect(errorOf(await call("POST", "/api/v0/webhooks/77/test/"))).toEqual({
      status: 404,
      error: "no_such_webhook",
    });
  });
});
