import { createServer } from "node:net";
import { performance } from "node:perf_hooks";
import {
  defaultRetryPolicy,
  type GpuCloudClient,
  type RetryEvent,
  type RetryPolicy,
} from "../../provider/client";
import { clientFor, closeTestConnections } from "../support/clients";
import { useEmulator } from "../support/use-emulator";
import { failureOf, requestsTo, startFakeServer, summary, waitFor } from "./harness";

const ASK = 31001;
const instance = { image: "pytorch/pytorch:latest", disk: 16 };

describe("retries under injected faults", () => {
  const h = useEmulator({ per: "test" });

  it("retries a throttled GET (429, plain text then JSON) and succeeds on the third request", async () => {
    await h.emulator.setFaults({ tooManyRequests: { next: 2 } });

    const user = await h.client.users.current();

    expect(user.id).toBe(1);
    expect(summary(await h.emulator.requests())).toEqual([
      "GET /api/v0/users/current/ 429",
      "GET /api/v0/users/current/ 429",
      "GET /api/v0/users/current/ 200",
    ]);
  });

  it.each([502, 503, 504] as const)("retries a GET answered %i", async (status) => {
    await h.emulator.setFaults({ serverErrors: { next: 2, status } });

    expect(await h.client.secrets.list()).toEqual({});
    expect(summary(await h.emulator.requests())).toEqual([
      `GET /api/v0/secrets/ ${String(status)}`,
      `GET /api/v0/secrets/ ${String(status)}`,
      "GET /api/v0/secrets/ 200",
    ]);
  });

  it("does not retry a 500, which is not a transient gateway failure", async () => {
    await h.emulator.setFaults({ serverErrors: { next: 1, status: 500 } });

    const error = await failureOf(h.client.secrets.list());

    expect(error).toMatchObject({ status: 500, code: "server_error", mayHaveCreated: false });
    expect(await h.emulator.requests()).toHaveLength(1);
  });

  it("gives up after maxAttempts requests", async () => {
    await h.emulator.setFaults({ serverErrors: { rate: 1 } });

    const error = await failureOf(h.client.users.current());

    expect(error).toMatchObject({ status: 503, code: "server_error" });
    expect(error.message).toBe(
      "GET /api/v0/users/current/ failed with HTTP 503 " +
        "(server_error: Injected server error (emulator fault).) (gave up after 5 attempts)",
    );
    expect(await h.emulator.requests()).toHaveLength(5);
  });

  it("does not retry a secret create answered 503: it may have been created", async () => {
    await h.emulator.setFaults({ serverErrors: { next: 1, status: 503 } });

    const error = await failureOf(h.client.secrets.create("TOKEN", "v"));

    expect(error).toMatchObject({
      status: 503,
      endpoint: "POST /api/v0/secrets/",
      mayHaveCreated: true,
    });
    expect(requestsTo(await h.emulator.requests(), "POST", "/api/v0/secrets/")).toHaveLength(1);
  });

  const creates: [string, string, (client: GpuCloudClient) => Promise<unknown>][] = [
    [
      "an instance create",
      `PUT /api/v0/asks/${String(ASK)}/`,
      (c) => c.instances.create(ASK, instance),
    ],
    ["a volume ask accept", "PUT /api/v0/volumes/", (c) => c.volumes.acceptVolumeAsk(21001, 10)],
    [
      "a webhook create",
      "POST /api/v0/webhooks/",
      (c) =>
        c.webhooks.create({
          webhook_url: "https://h.example.com/",
          event_types: ["client:low_credit"],
        }),
    ],
    [
      "a remote copy start",
      "PUT /api/v0/commands/copy_direct/",
      (c) => c.commands.startRemoteCopy({ srcId: "1", dstId: "2", srcPath: "/a", dstPath: "/b" }),
    ],
  ];

  it.each(creates)("does not retry %s answered 503", async (_case, endpoint, create) => {
    await h.emulator.setFaults({ serverErrors: { next: 1, status: 503 } });

    const error = await failureOf(create(h.client));

    expect(error).toMatchObject({ status: 503, endpoint, mayHaveCreated: true });
    expect(summary(await h.emulator.requests())).toEqual([`${endpoint} 503`]);
  });

  it("retries a create refused with 429, and exactly one secret exists", async () => {
    await h.emulator.setFaults({ tooManyRequests: { next: 1 } });

    await h.client.secrets.create("TOKEN", "v");

    expect(await h.emulator.secrets()).toEqual({ TOKEN: "v" });
    expect(summary(await h.emulator.requests())).toEqual([
      "POST /api/v0/secrets/ 429",
      "POST /api/v0/secrets/ 200",
    ]);
  });

  it("retries an instance create refused with 429, and exactly one instance exists", async () => {
    await h.emulator.setFaults({ tooManyRequests: { next: 2 } });

    const id = await h.client.instances.create(ASK, instance);

    expect((await h.emulator.state()).instances.map((created) => created.id)).toEqual([id]);
    expect(
      requestsTo(await h.emulator.requests(), "PUT", `/api/v0/asks/${String(ASK)}/`),
    ).toHaveLength(3);
  });

  it("does not retry an instance create whose connection dropped after handling", async () => {
    await h.emulator.setFaults({ drops: { next: 1, afterHandling: true } });

    const error = await failureOf(h.client.instances.create(ASK, instance));

    expect(error).toMatchObject({
      status: undefined,
      endpoint: `PUT /api/v0/asks/${String(ASK)}/`,
      mayHaveCreated: true,
    });
    expect(error.message).toMatch(/may have reached the service, so it was not sent again/);
    // The instance exists although no answer came: exactly one, from exactly one request.
    expect((await h.emulator.state()).instances).toHaveLength(1);
    expect(summary(await h.emulator.requests())).toEqual([`PUT /api/v0/asks/${String(ASK)}/ 0`]);
  });

  it("does not retry a create whose connection dropped, even before handling", async () => {
    // The client cannot tell a drop before handling from one after it.
    await h.emulator.setFaults({ drops: { next: 1 } });

    const error = await failureOf(h.client.secrets.create("TOKEN", "v"));

    expect(error.mayHaveCreated).toBe(true);
    expect(summary(await h.emulator.requests())).toEqual(["POST /api/v0/secrets/ 0"]);
    expect(await h.emulator.secrets()).toEqual({});
  });

  it("retries a GET whose connection dropped", async () => {
    await h.emulator.setFaults({ drops: { next: 1 } });

    expect(await h.client.webhooks.list()).toEqual([]);
    expect(summary(await h.emulator.requests())).toEqual([
      "GET /api/v0/webhooks/ 0",
      "GET /api/v0/webhooks/ 200",
    ]);
  });

  it("stops retrying at the deadline", async () => {
    await h.emulator.setFaults({ serverErrors: { rate: 1, methods: ["GET"] } });
    const policy: RetryPolicy = {
      maxAttempts: 1_000,
      deadlineMs: 300,
      floorMs: 25,
      backoff: () => 25,
    };
    const client = h.newClient({ retryPolicy: policy });

    const error = await failureOf(client.secrets.list());

    expect(error.status).toBe(503);
    // Each wait is at least 25 ms and none may end past 300 ms: at most 12 retries.
    const attempts = (await h.emulator.requests()).length;
    expect(attempts).toBeGreaterThanOrEqual(2);
    expect(attempts).toBeLessThanOrEqual(13);
  });

  it("times out a slow attempt and retries a GET", async () => {
    await h.emulator.setFaults({ latencyMs: 300 });
    const retries: RetryEvent[] = [];
    const client = h.newClient({
      timeoutMs: 100,
      retryPolicy: { maxAttempts: 2, deadlineMs: 5_000, floorMs: 5, backoff: () => 5 },
      onRetry: (event) => retries.push(event),
    });

    const error = await failureOf(client.users.current());

    expect(error.message).toBe(
      `GET /api/v0/users/current/ timed out after 100 ms (${h.emulator.url}) (gave up after 2 attempts)`,
    );
    expect(error).toMatchObject({ status: undefined, mayHaveCreated: false });
    expect(retries).toHaveLength(1);
    await waitFor("both attempts to reach the emulator", async () => {
      return (await h.emulator.requests()).length === 2;
    });
  });

  it("times out a slow create without retrying it: it may have been created", async () => {
    await h.emulator.setFaults({ latencyMs: 500 });
    const client = h.newClient({ timeoutMs: 150 });

    const error = await failureOf(client.instances.create(ASK, instance));

    expect(error.mayHaveCreated).toBe(true);
    expect(error.message).toMatch(/timed out after 150 ms.*may have reached the service/);
    expect(await h.emulator.requests()).toHaveLength(1);
  });
});

describe("refusals and failures counted apart", () => {
  const h = useEmulator({ per: "test" });

  it("refusals (429) use up no attempt: failures after them still get their retries", async () => {
    // Four refusals, then two 503s (the emulator tries 429 first), then an answer: seven
    // requests for a policy of 3 attempts.
    await h.emulator.setFaults({
      tooManyRequests: { next: 4 },
      serverErrors: { next: 2, status: 503 },
    });
    const client = h.newClient({
      retryPolicy: {
        maxAttempts: 3,
        deadlineMs: 5_000,
        throttledDeadlineMs: 60_000,
        floorMs: 5,
        backoff: () => 5,
      },
    });
    await client.secrets.list();

    expect(summary(await h.emulator.requests())).toEqual([
      ...Array.from({ length: 4 }, () => "GET /api/v0/secrets/ 429"),
      "GET /api/v0/secrets/ 503",
      "GET /api/v0/secrets/ 503",
      "GET /api/v0/secrets/ 200",
    ]);
    // The refusals paced the endpoint (0.25 + 0.5 + 1 + 2 s): a ceiling against hangs only.
  }, 30_000);
});

describe("retry waits", () => {
  const h = useEmulator({ per: "test" });

  it("waits at least the floor before retrying a 429 (the service sends no Retry-After)", async () => {
    await h.emulator.setFaults({ tooManyRequests: { next: 1 } });
    const retries: RetryEvent[] = [];
    const policy: RetryPolicy = {
      maxAttempts: 3,
      deadlineMs: 5_000,
      floorMs: 200,
      backoff: () => 0,
    };
    const client = h.newClient({ retryPolicy: policy, onRetry: (event) => retries.push(event) });

    const started = performance.now();
    await client.users.current();
    const elapsed = performance.now() - started;

    expect(retries).toEqual([
      expect.objectContaining({ endpoint: "GET /api/v0/users/current/", retry: 1, delayMs: 200 }),
    ]);
    expect(elapsed).toBeGreaterThanOrEqual(200);
    expect(summary(await h.emulator.requests())).toEqual([
      "GET /api/v0/users/current/ 429",
      "GET /api/v0/users/current/ 200",
    ]);
  });

  it("the default policy waits at least its floor after a 429", async () => {
    await h.emulator.setFaults({ tooManyRequests: { next: 1 } });
    const retries: RetryEvent[] = [];
    const client = h.newClient({
      retryPolicy: defaultRetryPolicy,
      onRetry: (event) => retries.push(event),
    });

    const started = performance.now();
    await client.users.current();
    const elapsed = performance.now() - started;

    expect(defaultRetryPolicy.floorMs).toBeGreaterThanOrEqual(250);
    expect(retries).toHaveLength(1);
    expect(retries[0]?.delayMs).toBeGreaterThanOrEqual(defaultRetryPolicy.floorMs);
    expect(elapsed).toBeGreaterThanOrEqual(defaultRetryPolicy.floorMs);
  });
});

describe("cancellation", () => {
  const h = useEmulator({ per: "test" });

  it.each([
    ["a read", "GET /api/v0/users/current/", false],
    ["a create", "POST /api/v0/secrets/", true],
  ] as const)("aborts %s in flight promptly", async (_case, endpoint, mayHaveCreated) => {
    // A server that never answers: without the abort the call would hang.
    const server = await startFakeServer(() => undefined);
    try {
      const client = clientFor(server.url, "fake-key");
      const controller = new AbortController();
      const pending = failureOf(
        endpoint.startsWith("GET")
          ? client.users.current(controller.signal)
          : client.secrets.create("A", "b", controller.signal),
      );
      await waitFor("the request to reach the server", () => server.received.length === 1);

      const aborted = performance.now();
      controller.abort();
      const error = await pending;

      expect(performance.now() - aborted).toBeLessThan(1_000);
      expect(error.message).toBe(`${endpoint} was cancelled`);
      // A create that was sent may have been created; a read has nothing to look for.
      expect(error).toMatchObject({ endpoint, status: undefined, mayHaveCreated });
      expect(server.received).toEqual([endpoint]);
    } finally {
      await server.close();
    }
  });

  it("aborts during the wait before a retry", async () => {
    await h.emulator.setFaults({ tooManyRequests: { rate: 1 } });
    const controller = new AbortController();
    let retried: () => void = () => undefined;
    const waiting = new Promise<void>((resolve) => {
      retried = resolve;
    });
    const client = h.newClient({
      retryPolicy: { maxAttempts: 5, deadlineMs: 60_000, floorMs: 30_000, backoff: () => 0 },
      onRetry: () => {
        retried();
      },
    });

    const started = performance.now();
    const pending = failureOf(client.secrets.list(controller.signal));
    await waiting;
    controller.abort();
    const error = await pending;

    expect(performance.now() - started).toBeLessThan(5_000);
    expect(error.message).toBe("GET /api/v0/secrets/ was cancelled");
    expect(error.mayHaveCreated).toBe(false);
    expect(summary(await h.emulator.requests())).toEqual(["GET /api/v0/secrets/ 429"]);
  });

  it("sends nothing when the signal is already aborted", async () => {
    const error = await failureOf(h.client.users.current(AbortSignal.abort()));

    expect(error.message).toBe("GET /api/v0/users/current/ was cancelled");
    expect(await h.emulator.requests()).toEqual([]);
  });
});

describe("connection refused", () => {
  afterAll(async () => {
    await closeTestConnections();
  });

  /** A port that was free a moment ago and has nothing listening on it. */
  async function closedPort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
    });
    if (address === null || typeof address === "string") throw new Error("no port");
    return address.port;
  }

  it.each([
    ["a read", "GET /api/v0/users/current/"],
    ["a create", "POST /api/v0/secrets/"],
  ])("retries %s up to maxAttempts, then fails saying why", async (_case, endpoint) => {
    const baseUrl = `http://127.0.0.1:${String(await closedPort())}`;
    const retries: RetryEvent[] = [];
    const client = clientFor(baseUrl, "any-key", { onRetry: (event) => retries.push(event) });

    const error = await failureOf(
      endpoint.startsWith("GET") ? client.users.current() : client.secrets.create("A", "b"),
    );

    expect(error.message).toBe(
      `${endpoint} failed: ECONNREFUSED (${baseUrl}) (gave up after 5 attempts)`,
    );
    // Never sent, so never created: a create may be retried and needs no search afterwards.
    expect(error).toMatchObject({ endpoint, status: undefined, mayHaveCreated: false });
    expect(retries.map((event) => event.retry)).toEqual([1, 2, 3, 4]);
  });
});
