import type { ServerResponse } from "node:http";
import { z } from "zod";
import { type GpuCloudClient, GpuCloudError } from "../../provider/client";
import { clientFor, closeTestConnections } from "../support/clients";
import { useEmulator } from "../support/use-emulator";
import {
  everyRendering,
  failureOf,
  type FakeServer,
  requestsTo,
  sendJson,
  startFakeServer,
  waitFor,
} from "./harness";

describe("secrets", () => {
  const h = useEmulator({ per: "test" });

  it("lists nothing on a new account", async () => {
    expect(await h.client.secrets.list()).toEqual({});
  });

  it("creates secrets that list masked: asterisks, or null when the value is empty", async () => {
    await h.client.secrets.create("api_token", "s3cr3t-value.1");
    await h.client.secrets.create("EMPTY_ONE", "");

    const listed = await h.client.secrets.list();

    // Keys are stored upper-case; the plaintext went to the service but never comes back.
    expect(await h.emulator.secrets()).toEqual({ API_TOKEN: "s3cr3t-value.1", EMPTY_ONE: "" });
    expect(Object.keys(listed).sort()).toEqual(["API_TOKEN", "EMPTY_ONE"]);
    expect(listed.API_TOKEN).toMatch(/^\*+$/);
    expect(listed.EMPTY_ONE).toBeNull();
    expect(JSON.stringify(listed)).not.toContain("s3cr3t-value.1");
  });

  it("updates a secret's value, which still lists masked", async () => {
    await h.client.secrets.create("DB_PASSWORD", "first-value");

    await h.client.secrets.update("DB_PASSWORD", "second-value");

    expect(await h.emulator.secrets()).toEqual({ DB_PASSWORD: "second-value" });
    const listed = await h.client.secrets.list();
    expect(listed.DB_PASSWORD).toMatch(/^\*+$/);
    expect(JSON.stringify(listed)).not.toMatch(/first-value|second-value/);
  });

  it("an update to an empty value lists as null", async () => {
    await h.client.secrets.create("TOKEN", "abc");

    await h.client.secrets.update("TOKEN", "");

    expect(await h.client.secrets.list()).toEqual({ TOKEN: null });
  });

  it("deletes a secret", async () => {
    await h.client.secrets.create("KEEP", "k");
    await h.client.secrets.create("DROP", "d");

    await h.client.secrets.delete("DROP");

    const listed = await h.client.secrets.list();
    expect(Object.keys(listed)).toEqual(["KEEP"]);
    expect(listed.KEEP).toMatch(/^\*+$/);
    expect(await h.emulator.secrets()).toEqual({ KEEP: "k" });
  });

  it("rejects creating a key that exists with existing_key, without echoing the value", async () => {
    await h.client.secrets.create("API_TOKEN", "original");

    const error = await failureOf(h.client.secrets.create("api_token", "replacement-value"));

    expect(error).toMatchObject({
      status: 400,
      code: "existing_key",
      serviceMessage: "Environment variable API_TOKEN already exists.",
      endpoint: "POST /api/v0/secrets/",
      mayHaveCreated: false,
    });
    expect(error.message).toBe(
      "POST /api/v0/secrets/ failed with HTTP 400 " +
        "(existing_key: Environment variable API_TOKEN already exists.)",
    );
    expect(everyRendering(error)).not.toContain("replacement-value");
    expect(await h.emulator.secrets()).toEqual({ API_TOKEN: "original" });
    // A 400 is an answer, not a failure to retry.
    expect(requestsTo(await h.emulator.requests(), "POST", "/api/v0/secrets/")).toHaveLength(2);
  });

  it("rejects updating a key that does not exist with nonexistent_key", async () => {
    const error = await failureOf(h.client.secrets.update("MISSING", "value-1"));

    expect(error).toMatchObject({
      status: 400,
      code: "nonexistent_key",
      serviceMessage: "Environment variable MISSING does not exist.",
      endpoint: "PUT /api/v0/secrets/",
    });
    expect(error.message).toContain("nonexistent_key");
    expect(await h.emulator.secrets()).toEqual({});
  });

  it("rejects deleting a key that does not exist with nonexistent_key, as not found", async () => {
    const error = await failureOf(h.client.secrets.delete("MISSING"));

    // The service's answer is a 400; its code says the key is not there.
    expect(error).toMatchObject({
      status: 400,
      code: "nonexistent_key",
      endpoint: "DELETE /api/v0/secrets/",
      isNotFound: true,
    });
    expect(error.message).toBe(
      "DELETE /api/v0/secrets/ failed with HTTP 400 " +
        "(nonexistent_key: No environment variable with that key.)",
    );
  });

  it("passes the service's validation errors through", async () => {
    const error = await failureOf(h.client.secrets.create("BAD", "spaces are not allowed"));

    expect(error).toMatchObject({ status: 400, code: "invalid_characters" });
    expect(error.serviceMessage).toContain("value");
    expect(everyRendering(error)).not.toContain("spaces are not allowed");
  });
});

describe("secrets.list sharing", () => {
  const h = useEmulator({ per: "test" });

  it("serves 100 concurrent lists with one request", async () => {
    await h.client.secrets.create("SHARED", "v");
    await h.emulator.clearRequests();

    const results = await Promise.all(Array.from({ length: 100 }, () => h.client.secrets.list()));

    for (const result of results) expect(result).toEqual({ SHARED: "********" });
    const gets = requestsTo(await h.emulator.requests(), "GET", "/api/v0/secrets/");
    expect(gets.length).toBeGreaterThanOrEqual(1);
    expect(gets.length).toBeLessThanOrEqual(2);
  });

  it("shares a list with the reads that follow it closely, as a refresh makes them", async () => {
    await h.client.secrets.create("A", "v");
    await h.emulator.clearRequests();

    for (let read = 0; read < 10; read++) {
      expect(await h.client.secrets.list()).toEqual({ A: "********" });
    }

    expect(requestsTo(await h.emulator.requests(), "GET", "/api/v0/secrets/")).toHaveLength(1);
  });

  it.each([
    [
      "a create",
      (c: GpuCloudClient) => c.secrets.create("B", "v"),
      { A: "********", B: "********" },
    ],
    ["an update", (c: GpuCloudClient) => c.secrets.update("A", ""), { A: null }],
    ["a delete", (c: GpuCloudClient) => c.secrets.delete("A"), {}],
  ])("a list after %s sends its own request and sees it", async (_case, write, expected) => {
    await h.client.secrets.create("A", "v");
    expect(await h.client.secrets.list()).toEqual({ A: "********" });

    await write(h.client);

    expect(await h.client.secrets.list()).toEqual(expected);
    expect(requestsTo(await h.emulator.requests(), "GET", "/api/v0/secrets/")).toHaveLength(2);
  });
});

/**
 * A server that holds its answers until released. A list takes its snapshot when it arrives;
 * a write takes effect when released: how requests in flight at the same time behave.
 */
describe("secrets.list sharing with requests in flight", () => {
  let server: FakeServer | undefined;
  const stored = new Map<string, string>();
  const held: { method: string; answer: () => void }[] = [];
  let holding = true;
  const releaseAll = () => {
    holding = false;
    for (const { answer } of held.splice(0)) answer();
  };
  const releaseFirst = (method: string) => {
    const index = held.findIndex((entry) => entry.method === method);
    const [entry] = held.splice(index, 1);
    if (index === -1 || entry === undefined) throw new Error(`no ${method} held`);
    entry.answer();
  };

  beforeEach(async () => {
    stored.clear();
    held.length = 0;
    holding = true;
    server = await startFakeServer((request, body, response: ServerResponse) => {
      const method = request.method ?? "?";
      let answer: () => void;
      if (method === "GET") {
        const snapshot = Object.fromEntries([...stored.keys()].map((key) => [key, "********"]));
        answer = () => {
          sendJson(response, 200, { success: true, secrets: snapshot });
        };
      } else {
        const input = z.object({ key: z.string(), value: z.string() }).parse(JSON.parse(body));
        answer = () => {
          stored.set(input.key.toUpperCase(), input.value);
          sendJson(response, 200, { success: true, msg: "Created." });
        };
      }
      if (holding) held.push({ method, answer });
      else answer();
    });
  });
  afterEach(async () => {
    releaseAll();
    await server?.close();
  });
  afterAll(async () => {
    await closeTestConnections();
  });

  const fake = (): FakeServer => {
    if (server === undefined) throw new Error("no server");
    return server;
  };

  it("a list called after a write completed sees the write, while an older list is in flight", async () => {
    const client = clientFor(fake().url, "fake-key");
    const before = client.secrets.list();
    await waitFor("the first list to reach the server", () => held.length === 1);

    const write = client.secrets.create("NEW", "v");
    await waitFor("the write to reach the server", () => held.length === 2);
    releaseFirst("POST");
    await write;
    holding = false;
    const after = client.secrets.list();
    releaseAll();

    expect(await before).toEqual({});
    expect(await after).toEqual({ NEW: "********" });
  });

  it("a list sent while a write was in flight is not reused after the write", async () => {
    const client = clientFor(fake().url, "fake-key");
    const write = client.secrets.create("NEW", "v");
    await waitFor("the write to reach the server", () => held.length === 1);
    const during = client.secrets.list();
    await waitFor("the list to reach the server", () => held.length === 2);

    releaseFirst("POST");
    await write;
    holding = false;
    const after = client.secrets.list();
    releaseAll();

    // The list sent during the write may predate it; one asked for after it may not.
    expect(await during).toEqual({});
    expect(await after).toEqual({ NEW: "********" });
  });

  it.each([
    ["before", true],
    ["after", false],
  ])(
    "cancelling a list started %s another caller's cancels only its own",
    async (_case, cancelledFirst) => {
      const client = clientFor(fake().url, "fake-key");
      const controller = new AbortController();
      let other = cancelledFirst ? undefined : client.secrets.list();
      const cancelled = client.secrets.list(controller.signal);
      other ??= client.secrets.list();
      await waitFor("both lists to reach the server", () => held.length === 2, 2_000);

      controller.abort();
      const error = await cancelled.then(
        () => undefined,
        (reason: unknown) => reason,
      );
      releaseAll();

      expect(error).toBeInstanceOf(GpuCloudError);
      expect(await other).toEqual({});
    },
  );
});
