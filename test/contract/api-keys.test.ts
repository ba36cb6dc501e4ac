import { inspect } from "node:util";
import { clientFor } from "../support/clients";
import { useEmulator } from "../support/use-emulator";
import { everyRendering, failureOf, sendJson, startFakeServer } from "./harness";

const READ_ONLY = { api: { user_read: {}, instance_read: {} } };

describe("apiKeys", () => {
  const h = useEmulator({ per: "test" });

  it("creates a scoped key that works within its scope and is refused outside it", async () => {
    const created = await h.client.apiKeys.create({ name: "dashboard", permissions: READ_ONLY });
    expect(created).toEqual({
      id: 2,
      key: expect.stringMatching(/^[0-9a-f]{64}$/) as string,
      permissions: READ_ONLY,
    });

    const scoped = h.newClient({ apiKey: created.key });
    expect((await scoped.users.current()).keyId).toBe(created.id);
    expect(await scoped.instances.list()).toEqual([]);

    const refused = await failureOf(scoped.secrets.list());
    expect(refused).toMatchObject({ status: 403, code: "forbidden", isAuthError: true });
    expect(everyRendering(refused)).not.toContain(created.key);
  });

  it("lists keys by id and name without their secret, and a deleted key gets 401", async () => {
    const created = await h.client.apiKeys.create({ name: "ci", permissions: READ_ONLY });

    const listed = await h.client.apiKeys.list();
    expect(listed.map(({ id, name }) => ({ id, name }))).toEqual([
      { id: 1, name: null },
      { id: created.id, name: "ci" },
    ]);
    expect(JSON.stringify(listed)).not.toContain(created.key);

    await h.client.apiKeys.delete(created.id);
    const revoked = await failureOf(h.newClient({ apiKey: created.key }).users.current());
    expect(revoked).toMatchObject({ status: 401, isAuthError: true });
    expect(everyRendering(revoked)).not.toContain(created.key);

    const again = await failureOf(h.client.apiKeys.delete(created.id));
    expect(again).toMatchObject({ status: 404, code: "no_such_api_key", isNotFound: true });
  });

  it("passes the service's refusal of a malformed scope through", async () => {
    const error = await failureOf(
      h.client.apiKeys.create({ permissions: { api: { instance_reed: {} } } }),
    );

    expect(error).toMatchObject({
      status: 400,
      code: "invalid_permissions",
      mayHaveCreated: false,
    });
    expect(await h.client.apiKeys.list()).toHaveLength(1);
  });

  it("never quotes a created key in an error, even when the answer is malformed", async () => {
    const secret = "f".repeat(64);
    const server = await startFakeServer((_request, _body, response) => {
      sendJson(response, 200, { id: "not-a-number", key: secret });
    });
    try {
      const error = await failureOf(
        clientFor(server.url, "k").apiKeys.create({ permissions: READ_ONLY }),
      );
      expect(error.message).toContain("unexpected response");
      expect(error.mayHaveCreated).toBe(true);
      expect(everyRendering(error)).not.toContain(secret);
      expect(inspect(error, { showHidden: true, depth: 10 })).not.toContain(secret);
    } finally {
      await server.close();
    }
  });
});
