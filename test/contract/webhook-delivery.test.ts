import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { useEmulator } from "../support/use-emulator";
import { failureOf, type FakeServer, startFakeServer } from "./harness";

interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
}

/** What a receiver must do with a delivery: recompute the documented HMAC over the raw body. */
function verifies(delivery: Delivery, secret: string): boolean {
  const timestamp = String(delivery.headers["x-vast-timestamp"]);
  const signature = String(delivery.headers["x-vast-signature-256"]);
  const expected = `sha256=${createHmac("sha256", secret).update(`${timestamp}.${delivery.body}`).digest("hex")}`;
  return (
    signature.length === expected.length &&
    timingSafeEqual(Buffer.from(signature), Buffer.from(expected))
  );
}

describe("webhook test deliveries (emulator started with allowInsecureWebhooks)", () => {
  const h = useEmulator({ per: "test", allowInsecureWebhooks: true });
  let receiver: FakeServer;
  let deliveries: Delivery[];
  let receiverStatus: number;

  beforeEach(async () => {
    deliveries = [];
    receiverStatus = 200;
    receiver = await startFakeServer((request, body, response) => {
      deliveries.push({ headers: request.headers, body });
      response.writeHead(receiverStatus).end();
    });
  });
  afterEach(async () => {
    await receiver.close();
  });

  it("delivers a signed webhook_test event that verifies with the webhook's secret", async () => {
    const created = await h.client.webhooks.create({
      webhook_url: `${receiver.url}/vast`,
      event_types: ["client:low_credit"],
    });

    expect(await h.client.webhooks.sendTest(created.id)).toBe("Test webhook delivered");

    expect(receiver.received).toEqual(["POST /vast"]);
    const [delivery] = deliveries;
    if (!delivery) throw new Error("no delivery received");
    expect(delivery.headers["content-type"]).toBe("application/json");
    expect(delivery.headers["x-vast-event-id"]).toMatch(/^[0-9a-f-]{36}$/);
    const timestamp = Number(delivery.headers["x-vast-timestamp"]);
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(60);
    expect(verifies(delivery, created.webhook_secret)).toBe(true);
    expect(verifies(delivery, `${created.webhook_secret}x`)).toBe(false);
    expect(JSON.parse(delivery.body)).toMatchObject({
      event_id: delivery.headers["x-vast-event-id"],
      notif_type: "webhook_test",
    });
  });

  it("signs with the new secret after a rotation, which only the rotation returns", async () => {
    const created = await h.client.webhooks.create({
      webhook_url: receiver.url,
      event_types: ["client:outbid"],
    });

    const rotated = await h.client.webhooks.rotateSecret(created.id);

    expect(rotated.id).toBe(created.id);
    expect(rotated.webhook_secret).not.toBe(created.webhook_secret);
    expect(JSON.stringify(await h.client.webhooks.list())).not.toContain(rotated.webhook_secret);
    await h.client.webhooks.sendTest(created.id);
    const [delivery] = deliveries;
    if (!delivery) throw new Error("no delivery received");
    expect(verifies(delivery, rotated.webhook_secret)).toBe(true);
    expect(verifies(delivery, created.webhook_secret)).toBe(false);
  });

  it("reports a receiver that refuses the delivery", async () => {
    receiverStatus = 500;
    const created = await h.client.webhooks.create({
      webhook_url: receiver.url,
      event_types: ["client:low_credit"],
    });

    const error = await failureOf(h.client.webhooks.sendTest(created.id));

    expect(error).toMatchObject({ status: 400, code: "delivery_failed" });
    expect(error.serviceMessage).toContain("HTTP 500");
    expect(error.message).not.toContain(created.webhook_secret);
  });
});

describe("webhook rules of the service", () => {
  const h = useEmulator({ per: "test" });

  it("lists the notification types whose keys webhooks subscribe to", async () => {
    const types = await h.client.webhooks.notificationTypes();

    expect(types.map((type) => type.key)).toEqual(
      expect.arrayContaining(["client:low_credit", "client:outbid", "host:machine_offline"]),
    );
    for (const type of types) {
      expect(type.key).toBe(`${type.context ?? ""}:${type.slug ?? ""}`);
    }
  });

  it("refuses a key outside the catalogue, naming it and the valid keys", async () => {
    const error = await failureOf(
      h.client.webhooks.create({
        webhook_url: "https://hooks.example.com/",
        event_types: ["client:low_credit", "instance.running"],
      }),
    );

    expect(error).toMatchObject({ status: 400, code: "invalid_args" });
    expect(error.serviceMessage).toContain("instance.running");
    expect(error.serviceMessage).toContain("client:low_credit");
  });

  it("allows four webhooks per user", async () => {
    for (let n = 1; n <= 4; n += 1) {
      await h.client.webhooks.create({
        webhook_url: `https://hooks.example.com/${n}`,
        event_types: ["client:low_credit"],
      });
    }

    const error = await failureOf(
      h.client.webhooks.create({
        webhook_url: "https://hooks.example.com/5",
        event_types: ["client:low_credit"],
      }),
    );

    expect(error).toMatchObject({ status: 400, code: "max_webhooks" });
    expect(await h.client.webhooks.list()).toHaveLength(4);
  });

  it("refuses plain-http and loopback targets unless the emulator allows them", async () => {
    for (const url of ["http://hooks.example.com/", "https://127.0.0.1/", "https://localhost/"]) {
      const error = await failureOf(
        h.client.webhooks.create({ webhook_url: url, event_types: ["client:low_credit"] }),
      );
      expect(error).toMatchObject({ status: 400, code: "invalid_args" });
      expect(error.serviceMessage).toContain("webhook_url");
    }
    expect(await h.client.webhooks.list()).toEqual([]);
  });
});
