import { gunzipSync } from "node:zlib";
import { withStack } from "../support/pulumi-stack";
import { emulatorConfig, outsideClient, program } from "../support/programs";
import { useEmulator } from "../support/use-emulator";

const baseArgs = {
  askId: 31001,
  image: "pytorch/pytorch:latest",
  diskGb: 20,
  pollIntervalSeconds: 0.05,
};

const instanceProgram = (args: Record<string, unknown>) =>
  program(`
const gpu = new gpucloud.Instance("gpu", ${JSON.stringify(args)});
exports.instanceId = gpu.instanceId;
exports.actualStatus = gpu.actualStatus;
exports.sshHost = gpu.sshHost;
exports.sshPort = gpu.sshPort;
exports.publicIp = gpu.publicIp;
exports.gpuRamMb = gpu.gpuRamMb;
exports.attempts = gpu.attempts;
// Inputs read back as outputs, given or not (maxLifetime is not).
exports.diskGb = gpu.diskGb;
exports.maxLifetimeReadable = typeof gpu.maxLifetime?.apply === "function";
`);

const creates = (requests: { method: string; path: string }[]) =>
  requests.filter((r) => r.method === "PUT" && r.path.startsWith("/api/v0/asks/"));
const destroys = (requests: { method: string; path: string }[]) =>
  requests.filter((r) => r.method === "DELETE" && r.path.startsWith("/api/v0/instances/"));

describe("Instance under the real Pulumi CLI", () => {
  const { emulator } = useEmulator({ per: "test", bootPolls: 4 });

  it("waits for running, relabels in place, survives refresh and is destroyed", async () => {
    await withStack(
      { program: instanceProgram(baseArgs), config: emulatorConfig(emulator) },
      async ({ stack, setProgram, output }) => {
        const onOutput = (text: string) => output.push(text);
        const up = await stack.up({ onOutput });
        expect(up.summary.resourceChanges).toEqual({ create: 3 });
        const [instance] = (await emulator.state()).instances;
        expect(up.outputs["instanceId"]?.value).toBe(instance?.id);
        expect(up.outputs["actualStatus"]?.value).toBe("running");
        expect(up.outputs["sshHost"]?.value).toEqual(expect.any(String));
        expect(up.outputs["sshPort"]?.value).toEqual(expect.any(Number));
        expect(up.outputs["publicIp"]?.value).toMatch(/^192\.0\.2\./);
        expect(up.outputs["gpuRamMb"]?.value).toBe(24564);
        expect(up.outputs["attempts"]?.value).toHaveLength(1);
        expect(up.outputs["diskGb"]?.value).toBe(20);
        expect(up.outputs["maxLifetimeReadable"]?.value).toBe(true);
        // One create, then status polls until running: never a second create.
        const requests = await emulator.requests();
        expect(creates(requests)).toHaveLength(1);
        // The emulator boots it on its 4th status poll: 4 status reads (a shared round's list
        // of the instances waited on, by id), no show, then done.
        const reads = requests.filter(
          (r) =>
            r.method === "GET" &&
            (r.path.startsWith("/api/v0/instances/") ||
              (r.path.startsWith("/api/v1/instances/") &&
                decodeURIComponent(r.path).includes('"id"'))),
        );
        expect(reads.map((r) => r.path.split("?")[0])).toEqual(
          Array.from({ length: 4 }, () => "/api/v1/instances/"),
        );
        expect(output.join("")).toMatch(/attempt 1 of 3: instance \d+ from ask 31001/);

        expect((await stack.refresh({ onOutput })).summary.resourceChanges).toEqual({ same: 3 });
        expect((await stack.up({ onOutput })).summary.resourceChanges).toEqual({ same: 3 });

        await setProgram(instanceProgram({ ...baseArgs, label: "training" }));
        const relabel = await stack.up({ onOutput });
        expect(relabel.summary.resourceChanges).toEqual({ same: 2, update: 1 });
        expect((await emulator.state()).instances).toEqual([
          expect.objectContaining({ id: instance?.id, label: "training" }),
        ]);

        // A removed label is cleared once, then the stack is steady.
        await setProgram(instanceProgram(baseArgs));
        const unlabel = await stack.up({ onOutput });
        expect(unlabel.summary.resourceChanges).toEqual({ same: 2, update: 1 });
        expect((await emulator.state()).instances[0]?.label).toBe("");
        expect((await stack.up({ onOutput })).summary.resourceChanges).toEqual({ same: 3 });

        await stack.destroy({ onOutput });
        expect((await emulator.state()).instances).toEqual([]);
      },
    );
  });

  it("finds the instance by its create token when the create's reply is lost", async () => {
    // The service handles the create, then the connection drops before the reply.
    // Only the create: check's offer search is a POST too.
    await emulator.setFaults({
      drops: { next: 1, afterHandling: true, methods: ["PUT"], paths: ["/api/v0/asks/"] },
    });
    await withStack(
      { program: instanceProgram(baseArgs), config: emulatorConfig(emulator) },
      async ({ stack }) => {
        const up = await stack.up();
        expect(up.summary.resourceChanges).toEqual({ create: 3 });
        const instances = (await emulator.state()).instances;
        expect(instances).toHaveLength(1);
        expect(up.outputs["instanceId"]?.value).toBe(instances[0]?.id);
        // Sent once, answered by a dropped connection, never sent again.
        expect(creates(await emulator.requests())).toEqual([
          expect.objectContaining({ status: 0 }),
        ]);
      },
    );
  });

  it("rents a VM when the account has an SSH key", async () => {
    await emulator.setUser({ ssh_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 dev@example" });
    await withStack(
      {
        program: instanceProgram({ ...baseArgs, runtype: "vm" }),
        config: emulatorConfig(emulator),
      },
      async ({ stack }) => {
        const up = await stack.up();
        expect(up.outputs["actualStatus"]?.value).toBe("running");
        expect((await emulator.state()).instances).toEqual([
          expect.objectContaining({ runtype: "vm" }),
        ]);
      },
    );
  });

  it("destroys an instance that exits and keeps the one that runs", async () => {
    await emulator.queueBoots([
      { status: "exited", afterPolls: 2, statusMsg: "Error: container exited with code 137" },
      { status: "running", afterPolls: 2 },
    ]);
    await withStack(
      { program: instanceProgram(baseArgs), config: emulatorConfig(emulator) },
      async ({ stack, output }) => {
        const up = await stack.up({ onOutput: (text) => output.push(text) });
        expect(up.summary.resourceChanges).toEqual({ create: 3 });
        const instances = (await emulator.state()).instances;
        expect(instances).toHaveLength(1);
        expect(up.outputs["instanceId"]?.value).toBe(instances[0]?.id);
        expect(up.outputs["attempts"]?.value).toEqual([
          expect.objectContaining({
            lastStatus: "exited",
            statusMessage: "Error: container exited with code 137",
          }),
          expect.objectContaining({ instanceId: instances[0]?.id }),
        ]);
        const requests = await emulator.requests();
        expect(creates(requests)).toHaveLength(2);
        expect(destroys(requests)).toHaveLength(1);
      },
    );
  });

  it("fails with each attempt listed and leaves nothing when every boot is offline", async () => {
    await emulator.queueBoots([1, 2, 3].map(() => ({ status: "offline" as const, afterPolls: 2 })));
    await withStack(
      {
        program: instanceProgram({ ...baseArgs, askIds: [31001, 31002], askId: undefined }),
        config: emulatorConfig(emulator),
      },
      async ({ stack, output }) => {
        const failure = stack.up({ onOutput: (text) => output.push(text) });
        await expect(failure).rejects.toThrow(
          /every one of 3 attempts ended without a running instance/,
        );
        await expect(failure).rejects.toThrow(
          /attempt 1: instance \d+ from ask 31001: last status offline/,
        );
        await expect(failure).rejects.toThrow(
          /attempt 2: instance \d+ from ask 31002: last status offline/,
        );
        await expect(failure).rejects.toThrow(
          /attempt 3: instance \d+ from ask 31001: last status offline/,
        );
        expect((await emulator.state()).instances).toEqual([]);
        const requests = await emulator.requests();
        expect(creates(requests)).toHaveLength(3);
        expect(destroys(requests)).toHaveLength(3);
      },
    );
  });

  it("destroys what it created when the deadline passes", async () => {
    await emulator.queueBoots([{ status: "running", afterPolls: 100_000 }]);
    await withStack(
      {
        program: instanceProgram({ ...baseArgs, createTimeoutSeconds: 2 }),
        config: emulatorConfig(emulator),
      },
      async ({ stack }) => {
        await expect(stack.up()).rejects.toThrow(/the 2 s createTimeoutSeconds deadline passed/);
        expect((await emulator.state()).instances).toEqual([]);
        expect(creates(await emulator.requests())).toHaveLength(1);
      },
    );
  });

  it("keeps an instance it cannot destroy in the stack, so a later destroy removes it", async () => {
    await emulator.queueBoots([{ status: "exited", afterPolls: 1 }]);
    // Destroy requests fail (500 is not retried): the dead-end instance cannot be removed.
    await emulator.setFaults({ serverErrors: { rate: 1, status: 500, methods: ["DELETE"] } });
    await withStack(
      { program: instanceProgram(baseArgs), config: emulatorConfig(emulator) },
      async ({ stack }) => {
        await expect(stack.up()).rejects.toThrow(
          /instance \d+ did not reach running and could not be destroyed; it is kept in the stack/,
        );
        const [instance] = (await emulator.state()).instances;
        const exported = await stack.exportStack();
        const deployment = exported.deployment as { resources?: { id?: string }[] };
        expect((deployment.resources ?? []).map((resource) => resource.id)).toContain(
          String(instance?.id),
        );

        // The next up replaces the broken instance: a running one, and the kept one destroyed.
        await emulator.clearFaults();
        const repair = await stack.up();
        expect(repair.summary.resourceChanges).toEqual({ same: 2, replace: 1 });
        const instances = (await emulator.state()).instances;
        expect(instances).toHaveLength(1);
        expect(instances[0]?.id).not.toBe(instance?.id);
        expect(repair.outputs["actualStatus"]?.value).toBe("running");

        await stack.destroy();
        expect((await emulator.state()).instances).toEqual([]);
      },
    );
  });

  it("compresses a 10,000-character onstart into a command the service accepts", async () => {
    const lines = Array.from(
      { length: 200 },
      (_, n) => `echo "step ${n}: $(( ${n} * 7 ))" >> /tmp/log`,
    );
    const script = `#!/bin/bash\n${lines.join("\n")}\n`.padEnd(10_000, "#");
    expect(script).toHaveLength(10_000);
    await withStack(
      {
        program: instanceProgram({ ...baseArgs, onstart: script }),
        config: emulatorConfig(emulator),
      },
      async ({ stack }) => {
        await stack.up();
        const [instance] = (await emulator.state()).instances;
        const command = instance?.onstart ?? "";
        expect(command.length).toBeLessThanOrEqual(4048);
        const payload = /echo ([A-Za-z0-9+/=]+) \| base64 -d/.exec(command)?.[1] ?? "";
        expect(gunzipSync(Buffer.from(payload, "base64")).toString("utf8")).toBe(script);
      },
    );
  });

  it("drops an instance destroyed outside Pulumi on refresh, and destroy leaves nothing", async () => {
    await withStack(
      { program: instanceProgram(baseArgs), config: emulatorConfig(emulator) },
      async ({ stack }) => {
        await stack.up();
        const [instance] = (await emulator.state()).instances;
        await outsideClient(emulator).instances.destroy(instance?.id ?? 0);
        const refresh = await stack.refresh();
        expect(refresh.summary.resourceChanges).toEqual({ same: 2, delete: 1 });
        const recreate = await stack.up();
        expect(recreate.summary.resourceChanges).toEqual({ same: 2, create: 1 });
        await stack.destroy();
        expect((await emulator.state()).instances).toEqual([]);
      },
    );
  });
});
