import { useEmulator } from "../support/use-emulator";
import { failureOf } from "./harness";

const hook = {
  webhook_url: "https://hooks.example.com/gpucloud",
  event_types: ["client:low_credit"],
  name: "ci notifications",
};

describe("webhooks", () => {
  const h = useEmulator({ per: "test" });

  it("lists nothing on a new account", async () => {
    expect(await h.client.webhooks.list()).toEqual([]);
  });

  it("creates a webhook and shows its signing secret only in the create result", async () => {
    const created = await h.client.webhooks.create(hook);

    expect(created).toMatchObject({ id: 1, ...hook });
    expect(created.webhook_secret).toMatch(/^whsec_\S{16,}$/);
    const listed = await h.client.webhooks.list();
    expect(listed).toEqual([
      {
        id: created.id,
        name: hook.name,
        webhook_url: hook.webhook_url,
        event_types: hook.event_types,
        user_id: 1,
        created_at: created.created_at,
        updated_at: created.updated_at,
      },
    ]);
    expect(JSON.stringify(listed)).not.toContain(created.webhook_secret);
  });

  it("creates a webhook without a name", async () => {
    const created = await h.client.webhooks.create({
      webhook_url: hook.webhook_url,
      event_types: ["client:outbid", "client:low_credit"],
    });

    expect(created.name).toBeNull();
    expect(created.event_types).toEqual(["client:outbid", "client:low_credit"]);
  });

  it("updates only the fields given", async () => {
    const created = await h.client.webhooks.create(hook);

    const updated = await h.client.webhooks.update(created.id, { name: "renamed" });

    expect(updated).toEqual({
      id: created.id,
      name: "renamed",
      webhook_url: hook.webhook_url,
      event_types: hook.event_types,
      user_id: 1,
      created_at: created.created_at,
      updated_at: expect.any(Number) as unknown,
    });
    expect(updated).not.toHaveProperty("webhook_secret");
    const [stored] = (await h.emulator.state()).webhooks;
    expect(stored).toMatchObject({ name: "renamed", url: hook.webhook_url });
  });

  it("deletes a webhook", async () => {
    const first = await h.client.webhooks.create(hook);
    const second = await h.client.webhooks.create({ ...hook, name: "second" });

    await h.client.webhooks.delete(first.id);

    expect((await h.client.webhooks.list()).map((webhook) => webhook.id)).toEqual([second.id]);
  });

  it("rejects deleting an unknown webhook with no_such_webhook", async () => {
    const error = await failureOf(h.client.webhooks.delete(42));

    expect(error).toMatchObject({
      status: 404,
      code: "no_such_webhook",
      serviceMessage: "No webhook with that id.",
      endpoint: "DELETE /api/v0/webhooks/42/",
      isNotFound: true,
    });
    expect(error.message).toBe(
      "DELETE /api/v0/webhooks/42/ failed with HTTP 404 (no_such_webhook: No webhook with that id.)",
    );
  });

  it("rejects updating an unknown webhook with no_such_webhook", async () => {
    const error = await failureOf(h.client.webhooks.update(7, { name: "x" }));

    expect(error).toMatchObject({
      status: 404,
      code: "no_such_webhook",
      endpoint: "PUT /api/v0/webhooks/7/",
    });
  });

  it("rejects a webhook URL that is not https with invalid_args", async () => {
    const error = await failureOf(
      h.client.webhooks.create({ ...hook, webhook_url: "http://hooks.example.com/" }),
    );

    expect(error).toMatchObject({ status: 400, code: "invalid_args", mayHaveCreated: false });
    expect(error.serviceMessage).toContain("webhook_url");
    expect(await h.client.webhooks.list()).toEqual([]);
  });
});
