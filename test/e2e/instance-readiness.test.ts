import { z } from "zod";
import { withStack, type TestStack } from "../support/pulumi-stack";
import { emulatorConfig, program } from "../support/programs";
import { useEmulator } from "../support/use-emulator";

// Ports as outputs and the readiness wait, with the real CLI against an emulator that serves
// each instance's mapped ports (servePorts: a stand-in app per instance, whose readiness the
// test sets). TypeScript and Python programs; a NodeGroup waits for every node.

async function statusAt(url: string): Promise<number | "refused"> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(5000) })).status;
  } catch {
    return "refused";
  }
}

const attemptsSchema = z.array(
  z.looseObject({
    ask_id: z.number(),
    last_status: z.string().optional(),
    error: z.string().optional(),
  }),
);

describe("readiness and ports (real Pulumi CLI)", () => {
  const { emulator } = useEmulator({
    per: "test",
    servePorts: true,
    bootPolls: 1,
    market: { seed: 1 },
  });
  const onOutput = (stack: TestStack) => (text: string) => stack.output.push(text);

  it("TypeScript: up returns once the app answers, and the exported URL answers; a 4-node group's once all four nodes' apps answer; an app that never answers fails up with the last answer, leaving nothing of it", async () => {
    // The server's app turns ready 4 s after its instance runs; three nodes' at once, the
    // fourth's 3 s after. The group depends on the server, so that the server's rent takes the
    // first app of the queue and the nodes' the others.
    const now = { readyAfterSeconds: 0 };
    await emulator.queueApps([
      { readyAfterSeconds: 4, notReadyStatus: 503 },
      now,
      now,
      now,
      { readyAfterSeconds: 3 },
    ]);
    const ready = `
const server = new gpucloud.Instance("server", {
  askId: 31003,
  image: "vllm/vllm-openai",
  diskGb: 20,
  pollIntervalSeconds: 0.1,
  exposePorts: [8000],
  readiness: { http: { port: 8000, path: "/health" }, intervalSeconds: 0.5, timeoutSeconds: 60 },
});
exports.url = server.urls.apply((urls) => urls && urls["8000"]);
exports.ports = server.ports;
const trainers = new gpucloud.NodeGroup("trainers", {
  nodeCount: 4,
  offerQuery: { gpuName: "H100 SXM" },
  image: "pytorch/pytorch",
  diskGb: 40,
  pollIntervalSeconds: 0.1,
  exposePorts: [8000],
  readiness: { http: { port: 8000 }, intervalSeconds: 0.2 },
}, { dependsOn: [server] });
exports.urls = trainers.nodes.apply((nodes) => nodes.map((node) => node.urls["8000"]));
`;
    await withStack(
      { program: program(ready), config: emulatorConfig(emulator), teardown: "discard" },
      async (stack) => {
        const up = await stack.stack.up({ onOutput: onOutput(stack) });
        // The app turned ready 4 s after the instance ran: up waited for it.
        const url = String(up.outputs["url"]?.value);
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(await statusAt(`${url}/health`)).toBe(200);
        const printed = stack.output.join("");
        // The path is left out of progress (it may hold a token).
        expect(printed).toMatch(new RegExp(`waiting for ${url.replace(/\./g, "\\.")}/…, 503`));
        expect(printed).toContain(`is ready (${url}/…)`);
        expect(up.outputs["ports"]?.value).toMatchObject({
          "8000/tcp": { publicIp: "127.0.0.1", hostPort: Number(new URL(url).port) },
        });

        // One node's app turned ready 3 s after the others': up waited for all four. (The
        // server's lines end in "/…": its path is left out.)
        const urls = z.array(z.string()).parse(up.outputs["urls"]?.value);
        expect(urls).toHaveLength(4);
        expect(printed).toMatch(/waiting for http:\/\/127\.0\.0\.1:\d+\/, 503/);
        // Each line twice: live, then among the diagnostics.
        const nodesReady = printed.match(/is ready \(http:\/\/127\.0\.0\.1:\d+\/\)/g) ?? [];
        expect(new Set(nodesReady).size).toBe(4);
        for (const nodeUrl of urls) expect(await statusAt(nodeUrl)).toBe(200);
        const running = (await emulator.state()).instances.map((instance) => instance.id);
        expect(running).toHaveLength(5);

        // An app that never answers, on either of its two offers: up fails with the last
        // answers, and nothing of it is left.
        await emulator.queueApps([
          { readyAfterSeconds: null, notReadyStatus: 502 },
          { readyAfterSeconds: null, notReadyStatus: 504 },
        ]);
        await stack.setProgram(
          program(`${ready}
new gpucloud.Instance("silent", {
  askIds: [31001, 31002],
  image: "vllm/vllm-openai",
  diskGb: 20,
  maxAttempts: 2,
  pollIntervalSeconds: 0.1,
  exposePorts: [8000],
  readiness: { http: { port: 8000 }, intervalSeconds: 0.2, timeoutSeconds: 1 },
});
`),
        );
        const said: string[] = [];
        await expect(stack.stack.up({ onOutput: (text) => said.push(text) })).rejects.toThrow(
          /silent: no running instance: every one of 2 attempts/,
        );
        stack.output.push(...said);
        const failed = said.join("");
        expect(failed).toContain("last status not ready");
        expect(failed).toContain("the last check answered: 502");
        expect(failed).toContain("the last check answered: 504");
        expect((await emulator.state()).instances.map((instance) => instance.id)).toEqual(running);
      },
    );
  });

  it("Python: an app that never answers is replaced by another offer's, whose URL answers", async () => {
    await emulator.queueApps([
      { readyAfterSeconds: null, notReadyStatus: 503 },
      { readyAfterSeconds: 1 },
    ]);
    const main = `import pulumi
import pulumi_gpucloud as gpucloud

server = gpucloud.Instance("server",
    ask_ids=[31001, 31002],
    image="vllm/vllm-openai",
    disk_gb=20,
    poll_interval_seconds=0.1,
    expose_ports=[8000],
    readiness={"http": {"port": 8000, "path": "/"}, "interval_seconds": 0.2, "timeout_seconds": 2})
pulumi.export("url", server.urls.apply(lambda urls: urls["8000"]))
pulumi.export("attempts", server.attempts)
pulumi.export("instance_id", server.instance_id)
`;
    await withStack(
      {
        language: "python",
        program: { main, project: "python-readiness" },
        config: emulatorConfig(emulator),
        teardown: "discard",
      },
      async (stack) => {
        const up = await stack.stack.up({ onOutput: onOutput(stack) });
        const url = String(up.outputs["url"]?.value);
        expect(await statusAt(url)).toBe(200);
        // Python's outputs name the fields in snake case.
        const attempts = attemptsSchema.parse(up.outputs["attempts"]?.value);
        expect(attempts).toHaveLength(2);
        expect(attempts[0]).toMatchObject({ ask_id: 31001, last_status: "not ready" });
        expect(attempts[0]?.error).toContain("the last check answered: 503");
        // The one that never answered is gone; the one that did is the stack's.
        expect((await emulator.state()).instances.map((instance) => instance.id)).toEqual([
          up.outputs["instance_id"]?.value,
        ]);
      },
    );
  });
});
