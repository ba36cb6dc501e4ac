import { newStackToken } from "../../provider/renting/identity";
import {
  implementation as instanceProvider,
  instanceInputsSchema,
  type InstanceInputs,
  type InstanceOutputs,
} from "../../provider/resources/instance";
import {
  implementation as groupProvider,
  type NodeGroupInputs,
  type NodeGroupOutputs,
} from "../../provider/resources/node-group";
import { useEmulator } from "../support/use-emulator";

// Ports as outputs and the readiness wait, the providers' methods called directly against an
// emulator that serves instances' ports (servePorts: a stand-in app per instance).

jest.setTimeout(60_000);

const ASK = 31001; // a seeded ask, rentable any number of times on the small market

async function statusAt(url: string): Promise<number | "refused"> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2000) })).status;
  } catch {
    return "refused";
  }
}

describe("an Instance's ports and readiness", () => {
  const providers = useEmulator({ per: "test", servePorts: true, bootPolls: 1, market: false });
  const { emulator } = providers;

  const inputs = (fields: Record<string, unknown> = {}): InstanceInputs =>
    instanceInputsSchema.parse({
      askId: ASK,
      image: "vllm/vllm-openai",
      diskGb: 20,
      pollIntervalSeconds: 0.05,
      exposePorts: [8000],
      owner: "p/dev/server",
      stackToken: newStackToken(),
      ...fields,
    });
  const create = async (fields: Record<string, unknown> = {}) => {
    const checked = await instanceProvider.check(providers.run, {} as never, inputs(fields));
    expect(checked.failures).toEqual([]);
    const { id, outs } = await instanceProvider.create(
      providers.run,
      checked.inputs as InstanceInputs,
    );
    if (outs === undefined) throw new Error("create recorded no outputs");
    return { id, outs };
  };
  const failureOf = async (fields: Record<string, unknown>) =>
    create(fields).then(
      () => {
        throw new Error("create succeeded");
      },
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );

  it("outputs the mapped ports and a URL per TCP port, which answers, kept by read", async () => {
    const { id, outs } = await create({ exposePorts: [8000, "5353/udp"] });
    const [stored] = (await emulator.state()).instances;
    expect(stored?.env).toMatchObject({ "-p 8000:8000": "1", "-p 5353:5353/udp": "1" });
    expect(outs.ports?.["8000/tcp"]).toEqual({
      publicIp: "127.0.0.1",
      hostPort: expect.any(Number) as unknown,
    });
    expect(outs.ports?.["22/tcp"]).toEqual({
      publicIp: "127.0.0.1",
      hostPort: expect.any(Number) as unknown,
    });
    expect(outs.ports?.["5353/udp"]).toBeDefined();
    const url = outs.urls?.["8000"];
    expect(url).toBe(`http://127.0.0.1:${String(outs.ports?.["8000/tcp"]?.hostPort)}`);
    expect(Object.keys(outs.urls ?? {})).toEqual(["8000"]);
    expect(await statusAt(`${url ?? ""}/health`)).toBe(200);
    // Refresh reads them again.
    const read = await instanceProvider.read(providers.run, id, outs);
    expect((read.props as InstanceOutputs).urls).toEqual(outs.urls);
  });

  it("returns only once the app answers, saying what it waits for but not its path", async () => {
    await emulator.queueApps([{ readyAfterSeconds: 1.5, notReadyStatus: 503 }]);
    const startedMs = Date.now();
    // A path may hold a token: progress shows the address alone.
    const path = "/health?token=hc-s3cret";
    const { outs } = await create({
      readiness: { http: { port: 8000, path }, intervalSeconds: 0.2 },
    });
    expect(Date.now() - startedMs).toBeGreaterThanOrEqual(1500);
    const origin = outs.urls?.["8000"] ?? "";
    expect(await statusAt(`${origin}${path}`)).toBe(200);
    const shown = `${origin}/…`;
    expect(providers.progress).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          new RegExp(
            `instance ${String(outs.instanceId)}: waiting for ${shown.replace(/[.?]/g, "\\$&")}, 503`,
          ),
        ),
        expect.stringContaining(`instance ${String(outs.instanceId)} is ready (${shown})`),
      ]),
    );
    expect(providers.progress.join("\n")).not.toMatch(/health|hc-s3cret/);
    expect(outs.attempts).toHaveLength(1);
  });

  it("replaces an instance whose app never answers by another offer's", async () => {
    await emulator.queueApps([{ readyAfterSeconds: null, notReadyStatus: 502 }]);
    const { outs } = await create({
      askIds: [ASK, 31002],
      askId: undefined,
      readiness: { http: { port: 8000 }, intervalSeconds: 0.1, timeoutSeconds: 1 },
    });
    expect(outs.attempts).toHaveLength(2);
    expect(outs.attempts[0]).toMatchObject({
      askId: ASK,
      lastStatus: "not ready",
      error: expect.stringContaining("the last check answered: 502") as unknown,
    });
    const living = (await emulator.state()).instances.map((instance) => instance.id);
    expect(living).toEqual([outs.instanceId]);
  });

  it("ends the wait when the instance stops running meanwhile, saying so", async () => {
    await emulator.queueApps([{ readyAfterSeconds: null, notReadyStatus: 503 }]);
    const failed = failureOf({
      maxAttempts: 1,
      readiness: { http: { port: 8000 }, intervalSeconds: 0.1, timeoutSeconds: 30 },
    });
    // Destroyed outside Pulumi once the wait began: its port refuses, and its status tells why.
    while (!providers.progress.some((line) => line.includes(": waiting for http://"))) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const [waitedFor] = (await emulator.state()).instances;
    await providers.client.instances.destroy(waitedFor?.id ?? 0);
    expect(await failed).toMatch(/not ready: the instance is gone/);
  });

  it("fails with the last answer when no app answers, leaving nothing", async () => {
    await emulator.queueApps([
      { readyAfterSeconds: null, notReadyStatus: 503 },
      { readyAfterSeconds: null, notReadyStatus: 504 },
    ]);
    const message = await failureOf({
      maxAttempts: 2,
      readiness: { http: { port: 8000 }, intervalSeconds: 0.1, timeoutSeconds: 0.5 },
    });
    expect(message).toMatch(/^server: no running instance: every one of 2 attempts/);
    expect(message).toContain("last status not ready");
    expect(message).toContain("the last check answered: 503");
    expect(message).toContain("the last check answered: 504");
    expect((await emulator.state()).instances).toEqual([]);
  });

  it("waits for a TCP connection, and for a port the instance does not map says so", async () => {
    const { outs } = await create({ readiness: { tcp: { port: 8000 }, intervalSeconds: 0.1 } });
    expect(providers.progress).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`instance ${String(outs.instanceId)} is ready (tcp://127.0.0.1:`),
      ]),
    );
    const message = await failureOf({
      maxAttempts: 1,
      readiness: { tcp: { port: 9000 }, intervalSeconds: 0.1, timeoutSeconds: 0.3 },
    });
    expect(message).toContain("the last check answered: port 9000/tcp is not mapped yet");
  });

  it("cancelled while it waits, destroys the instance and says so", async () => {
    await emulator.queueApps([{ readyAfterSeconds: null }]);
    const created = create({ readiness: { http: { port: 8000 }, intervalSeconds: 0.1 } });
    const failed = created.then(
      () => "created",
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    const deadline = Date.now() + 10_000;
    while (!providers.progress.some((line) => line.includes("waiting for http://"))) {
      if (Date.now() > deadline) throw new Error("never waited for the app");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    providers.run.cancellation.cancel();
    expect(await failed).toMatch(
      /^server: cancelled: instance \d+ destroyed; nothing is left running/,
    );
    expect((await emulator.state()).instances).toEqual([]);
  });
});

describe("the onstart's line", () => {
  const providers = useEmulator({
    per: "file",
    servePorts: true,
    runOnstart: true,
    bootPolls: 1,
    market: false,
  });

  it("is ready once the onstart printed it, read from the instance's logs", async () => {
    const checked = await instanceProvider.check(
      providers.run,
      {} as never,
      instanceInputsSchema.parse({
        askId: ASK,
        image: "img",
        diskGb: 10,
        pollIntervalSeconds: 0.05,
        onstart: "sleep 1; echo 'model loaded: serving'",
        readiness: { onstartLine: "model loaded", intervalSeconds: 0.2, timeoutSeconds: 20 },
        owner: "p/dev/logs",
        stackToken: newStackToken(),
      }),
    );
    expect(checked.failures).toEqual([]);
    const { outs } = await instanceProvider.create(providers.run, checked.inputs as InstanceInputs);
    expect((outs as InstanceOutputs).actualStatus).toBe("running");
    expect(providers.progress).toEqual(
      expect.arrayContaining([
        expect.stringContaining("waiting for its onstart's line, not printed yet"),
      ]),
    );
  });
});

describe("a NodeGroup's readiness: every node", () => {
  const providers = useEmulator({
    per: "file",
    servePorts: true,
    bootPolls: 1,
    market: { seed: 1 },
  });
  const { emulator } = providers;

  it("returns once every node's app answers, each node with its URL", async () => {
    await emulator.queueApps([{ readyAfterSeconds: 0 }, { readyAfterSeconds: 2 }]);
    const news: NodeGroupInputs = {
      nodeCount: 2,
      offerQuery: { gpuName: "H100 SXM" },
      image: "pytorch/pytorch",
      diskGb: 40,
      exposePorts: [8000],
      readiness: { http: { port: 8000, path: "/" }, intervalSeconds: 0.2 },
      createTimeoutSeconds: 120,
      pollIntervalSeconds: 0.05,
      owner: "p/dev/trainers",
      stackToken: newStackToken(),
    };
    const checked = await groupProvider.check(providers.run, {} as never, news);
    expect(checked.failures).toEqual([]);
    const startedMs = Date.now();
    const { outs } = await groupProvider.create(providers.run, checked.inputs as NodeGroupInputs);
    expect(Date.now() - startedMs).toBeGreaterThanOrEqual(2000);
    const group = outs as NodeGroupOutputs;
    expect(group.nodes).toHaveLength(2);
    for (const node of group.nodes) {
      expect(await statusAt(node.urls?.["8000"] ?? "")).toBe(200);
    }
    await groupProvider.delete(providers.run, "group", group);
  });

  it("fails the group when one node never answers, taking it apart", async () => {
    await emulator.queueApps([{ readyAfterSeconds: 0 }, { readyAfterSeconds: null }]);
    const news: NodeGroupInputs = {
      nodeCount: 2,
      offerQuery: { gpuName: "H100 SXM" },
      image: "pytorch/pytorch",
      diskGb: 40,
      exposePorts: [8000],
      readiness: { http: { port: 8000 }, intervalSeconds: 0.2, timeoutSeconds: 1 },
      createTimeoutSeconds: 120,
      pollIntervalSeconds: 0.05,
      owner: "p/dev/stuck",
      stackToken: newStackToken(),
    };
    const checked = await groupProvider.check(providers.run, {} as never, news);
    await expect(
      groupProvider.create(providers.run, checked.inputs as NodeGroupInputs),
    ).rejects.toThrow(
      /rank \d \(instance \d+\) not ready; the last check answered: 503[\s\S]*taken apart/,
    );
    const left = await emulator.state();
    expect({ instances: left.instances, overlays: left.overlays }).toEqual({
      instances: [],
      overlays: [],
    });
  });
});
