import { gunzipSync } from "node:zlib";
import { implementation as instanceProvider } from "../../provider/resources/instance";
import { instanceInputsSchema } from "../../provider/resources/instance/inputs";
import { newStackToken } from "../../provider/renting/identity";
import { useEmulator } from "../support/use-emulator";

// What an Instance's create does with the boots the service gives it, the provider's methods
// called directly as the provider process calls them: the attempts, what a failed one leaves, a
// lost reply, the deadline, a long onstart, a label set and cleared. What the engine adds (the
// progress line printed, a kept instance recorded and replaced, refresh of one destroyed outside
// Pulumi) is test/e2e/instance.test.ts.
/** A create's or update's outputs, which the Instance provider always returns. */
function outsOf<T>(result: { outs?: T } | undefined): T {
  if (result?.outs === undefined) throw new Error("no outputs returned");
  return result.outs;
}

describe("Instance create against the emulator", () => {
  const providers = useEmulator({ per: "test", bootPolls: 4 });
  const { emulator } = providers;

  const inputs = (fields: Record<string, unknown> = {}) =>
    instanceInputsSchema.parse({
      askId: 31001,
      image: "pytorch/pytorch:latest",
      diskGb: 20,
      pollIntervalSeconds: 0.05,
      owner: "p/s/gpu",
      stackToken: newStackToken(),
      ...fields,
    });
  const creates = async () =>
    (await emulator.requests()).filter(
      (r) => r.method === "PUT" && r.path.startsWith("/api/v0/asks/"),
    );
  const destroys = async () =>
    (await emulator.requests()).filter(
      (r) => r.method === "DELETE" && r.path.startsWith("/api/v0/instances/"),
    );

  it("creates once, then reads the status by the shared round's list until running, with its outputs", async () => {
    const created = await instanceProvider.create(providers.run, inputs());
    const [instance] = (await emulator.state()).instances;
    expect(created.id).toBe(String(instance?.id));
    expect(created.outs).toMatchObject({
      instanceId: instance?.id,
      actualStatus: "running",
      sshHost: expect.any(String) as unknown,
      sshPort: expect.any(Number) as unknown,
      publicIp: expect.stringMatching(/^192\.0\.2\./) as unknown,
      gpuRamMb: 24564,
      diskGb: 20,
      attempts: [expect.objectContaining({ instanceId: instance?.id })],
    });
    expect(await creates()).toHaveLength(1);
    // The emulator boots it on its 4th status poll: 4 status reads (a shared round's list of
    // the instances waited on, by id), no show, then done.
    const reads = (await emulator.requests()).filter(
      (r) =>
        r.method === "GET" &&
        (r.path.startsWith("/api/v0/instances/") ||
          (r.path.startsWith("/api/v1/instances/") && decodeURIComponent(r.path).includes('"id"'))),
    );
    expect(reads.map((r) => r.path.split("?")[0])).toEqual(
      Array.from({ length: 4 }, () => "/api/v1/instances/"),
    );
    expect(providers.progress.join("\n")).toMatch(/attempt 1 of 3: instance \d+ from ask 31001/);
  });

  it("a label set and then removed is cleared once, and the next diff sees no change", async () => {
    const plain = inputs();
    const created = await instanceProvider.create(providers.run, plain);
    const labelled = await instanceProvider.update?.(providers.run, created.id, outsOf(created), {
      ...plain,
      label: "training",
    });
    expect((await emulator.state()).instances[0]?.label).toBe("training");
    const cleared = await instanceProvider.update?.(
      providers.run,
      created.id,
      outsOf(labelled),
      plain,
    );
    expect((await emulator.state()).instances[0]?.label).toBe("");
    const diff = await instanceProvider.diff(providers.run, created.id, outsOf(cleared), plain);
    expect(diff.changes).toBe(false);
  });

  it("creates an instance declared stopped: rented, then stopped, and recorded so", async () => {
    const created = await instanceProvider.create(providers.run, inputs({ state: "stopped" }));
    expect(created.outs).toMatchObject({
      state: "stopped",
      actualStatus: "stopped",
      intendedStatus: "stopped",
    });
    const instances = (await emulator.state()).instances;
    expect(instances).toEqual([
      expect.objectContaining({ id: created.outs?.instanceId, intendedStatus: "stopped" }),
    ]);
    expect(await creates()).toHaveLength(1);
  });

  it("finds the instance by its create token when the create's reply is lost, sending it once", async () => {
    // The service handles the create, then the connection drops before the reply.
    await emulator.setFaults({
      drops: { next: 1, afterHandling: true, methods: ["PUT"], paths: ["/api/v0/asks/"] },
    });
    const created = await instanceProvider.create(providers.run, inputs());
    const instances = (await emulator.state()).instances;
    expect(instances).toHaveLength(1);
    expect(created.outs?.instanceId).toBe(instances[0]?.id);
    expect(await creates()).toEqual([expect.objectContaining({ status: 0 })]);
  });

  it("rents a VM when the account has an SSH key", async () => {
    await emulator.setUser({ ssh_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 dev@example" });
    const created = await instanceProvider.create(providers.run, inputs({ runtype: "vm" }));
    expect(created.outs?.actualStatus).toBe("running");
    expect((await emulator.state()).instances).toEqual([
      expect.objectContaining({ runtype: "vm" }),
    ]);
  });

  it("destroys an instance that exits and keeps the one that runs, listing both attempts", async () => {
    await emulator.queueBoots([
      { status: "exited", afterPolls: 2, statusMsg: "Error: container exited with code 137" },
      { status: "running", afterPolls: 2 },
    ]);
    const created = await instanceProvider.create(providers.run, inputs());
    const instances = (await emulator.state()).instances;
    expect(instances).toHaveLength(1);
    expect(created.outs?.instanceId).toBe(instances[0]?.id);
    expect(created.outs?.attempts).toEqual([
      expect.objectContaining({
        lastStatus: "exited",
        statusMessage: "Error: container exited with code 137",
      }),
      expect.objectContaining({ instanceId: instances[0]?.id }),
    ]);
    expect(await creates()).toHaveLength(2);
    expect(await destroys()).toHaveLength(1);
  });

  it("fails with each attempt listed and leaves nothing when every boot is offline", async () => {
    await emulator.queueBoots([1, 2, 3].map(() => ({ status: "offline" as const, afterPolls: 2 })));
    const failure = instanceProvider.create(
      providers.run,
      inputs({ askIds: [31001, 31002], askId: undefined }),
    );
    await expect(failure).rejects.toThrow(
      /every one of 3 attempts ended without a running instance/,
    );
    for (const [n, ask] of [
      [1, 31001],
      [2, 31002],
      [3, 31001],
    ]) {
      await expect(failure).rejects.toThrow(
        new RegExp(`attempt ${n}: instance \\d+ from ask ${ask}: last status offline`),
      );
    }
    expect((await emulator.state()).instances).toEqual([]);
    expect(await creates()).toHaveLength(3);
    expect(await destroys()).toHaveLength(3);
  });

  it("destroys what it created when the deadline passes", async () => {
    await emulator.queueBoots([{ status: "running", afterPolls: 100_000 }]);
    await expect(
      instanceProvider.create(providers.run, inputs({ createTimeoutSeconds: 1 })),
    ).rejects.toThrow(/the 1 s createTimeoutSeconds deadline passed/);
    expect((await emulator.state()).instances).toEqual([]);
    expect(await creates()).toHaveLength(1);
  });

  it("compresses a 10,000-character onstart into a command the service accepts", async () => {
    const lines = Array.from(
      { length: 200 },
      (_, n) => `echo "step ${n}: $(( ${n} * 7 ))" >> /tmp/log`,
    );
    const script = `#!/bin/bash\n${lines.join("\n")}\n`.padEnd(10_000, "#");
    expect(script).toHaveLength(10_000);
    await instanceProvider.create(providers.run, inputs({ onstart: script }));
    const [instance] = (await emulator.state()).instances;
    const command = instance?.onstart ?? "";
    expect(command.length).toBeLessThanOrEqual(4048);
    const payload = /echo ([A-Za-z0-9+/=]+) \| base64 -d/.exec(command)?.[1] ?? "";
    expect(gunzipSync(Buffer.from(payload, "base64")).toString("utf8")).toBe(script);
  });
});
