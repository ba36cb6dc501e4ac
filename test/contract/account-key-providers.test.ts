import { GpuCloudClient } from "../../provider/client";
import { implementation as apiKeyProvider } from "../../provider/resources/api-key";
import {
  implementation as instanceProvider,
  type InstanceOutputs,
} from "../../provider/resources/instance";
import { InstanceLeftBehindError } from "../../provider/renting/errors";
import { newStackToken } from "../../provider/renting/identity";
import { instanceInputsSchema } from "../../provider/resources/instance/inputs";
import { attachAfterRunning } from "../../provider/renting/ssh-keys";
import { implementation as sshKeyProvider } from "../../provider/resources/ssh-key";
import { useEmulator } from "../support/use-emulator";

const ed25519 =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPhlKxSmAILXPiklFetxXJ412q6DLq52hOZ2JGxdT6n0 dev@example";
const rsa =
  "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQCpQkFjaEeRPx9dzHHuRV0M+4hLEyfGYtrHxz1NpMu3HLR4A3oMq53AbS38I8Lvglx4xzKrokYmIK2H5M84UuLCDHHCfdJwrSue4+wAvX3IMjmm6ktjhYIZfZ9lrFkE6llx6brTJRdaxq7DFSAPsCLCwAsD/rqiZBjHkYV5uWxwOw==";

// The SshKey and ApiKey providers' methods called directly: what a whole program cannot provoke
// on demand (a create whose reply is lost, an attach that fails on a running instance) and what
// each method does with the account's keys. What the engine adds (preview with a key unknown,
// refresh and up restoring outside changes, secrets never printed) is test/e2e/account-keys.
/** A create's or update's outputs, which these providers always return. */
function outsOf<T>(created: { outs?: T } | undefined): T {
  if (created?.outs === undefined) throw new Error("no outputs returned");
  return created.outs;
}

describe("account key providers against the emulator", () => {
  let client: GpuCloudClient;
  const providers = useEmulator({ per: "file", bootPolls: 1 });
  const { emulator } = providers;
  beforeAll(() => {
    client = new GpuCloudClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  });

  it("SshKey: takes the key a lost reply registered, registering it once", async () => {
    await emulator.clearRequests();
    await emulator.setFaults({ drops: { next: 1, afterHandling: true, methods: ["POST"] } });
    try {
      const created = await sshKeyProvider.create(providers.run, { publicKey: ed25519 });
      const [stored] = (await emulator.state()).sshKeys;
      expect(created).toEqual({
        id: String(stored?.id),
        outs: {
          publicKey: ed25519,
          sshKeyId: stored?.id,
          fingerprint: "SHA256:BaVHplQrFzxdANndtnYRgO8syaCFIBY7cpwSY3G7N0k",
        },
      });
      await sshKeyProvider.delete?.(providers.run, created.id, {
        publicKey: ed25519,
        sshKeyId: stored?.id ?? 0,
        fingerprint: "",
      });
    } finally {
      await emulator.clearFaults();
    }
    const posts = (await emulator.requests()).filter((entry) => entry.method === "POST");
    expect(posts).toEqual([expect.objectContaining({ path: "/api/v0/ssh/", status: 0 })]);
    expect((await emulator.state()).sshKeys).toEqual([]);
  });

  it("ApiKey: revokes the key a lost reply created (it can never be shown) and fails", async () => {
    await emulator.setFaults({ drops: { next: 1, afterHandling: true, methods: ["POST"] } });
    try {
      await expect(
        apiKeyProvider.create(providers.run, {
          name: "lost",
          permissions: { api: { instance_read: {} } },
        }),
      ).rejects.toThrow(/the key it created \(id \d+\) was revoked\. Run `pulumi up` again\./);
    } finally {
      await emulator.clearFaults();
    }
    expect((await client.apiKeys.list()).map((key) => key.name)).not.toContain("lost");
  });

  it("Instance: a key that cannot be attached keeps the running instance, with the keys attached so far", async () => {
    const key = await client.sshKeys.create(ed25519);
    const instanceId = await client.instances.create(31001, { image: "img", disk: 10 });
    const outs = { instanceId, sshKeyIds: [key.id, 77] } as unknown as InstanceOutputs;
    const failure = attachAfterRunning(client, { id: String(instanceId), outs }, [
      key,
      { id: 77, publicKey: "not a key", createdAt: null },
    ]);
    await expect(failure).rejects.toBeInstanceOf(InstanceLeftBehindError);
    await expect(failure).rejects.toMatchObject({
      id: String(instanceId),
      properties: { instanceId, sshKeyIds: [key.id] },
    });
    await expect(failure).rejects.toThrow(
      /SSH key 77 could not be attached .* the next `pulumi up` attaches it/,
    );
    await client.instances.destroy(instanceId);
    await client.sshKeys.delete(key.id);
  });
  it("SshKey: read reports a key changed outside with the inputs up restores, and a deleted one as gone", async () => {
    const created = await sshKeyProvider.create(providers.run, { publicKey: ed25519 });
    const outs = outsOf(created);
    expect(await sshKeyProvider.read(providers.run, created.id, outs)).toEqual({
      id: created.id,
      props: outs,
    });
    await client.sshKeys.update(outs.sshKeyId, rsa);
    const drift = await sshKeyProvider.read(providers.run, created.id, outs);
    expect(drift.inputs).toEqual({ publicKey: rsa });
    // The declared key differs from the one read: up changes it in place, keeping the id.
    expect(
      await sshKeyProvider.diff(providers.run, created.id, drift.props ?? outs, {
        publicKey: ed25519,
      }),
    ).toEqual({ changes: true, replaces: [] });
    const updated = await sshKeyProvider.update?.(providers.run, created.id, outs, {
      publicKey: ed25519,
    });
    expect(updated?.outs).toEqual(outs);
    await client.sshKeys.delete(outs.sshKeyId);
    expect(await sshKeyProvider.read(providers.run, created.id, outs)).toEqual({});
  });

  it("ApiKey: a revoked key reads as gone; a new scope's key works and the old one's delete revokes it", async () => {
    const read = { name: "reader", permissions: { api: { instance_read: {} } } };
    const first = await apiKeyProvider.create(providers.run, read);
    const firstOuts = outsOf(first);
    expect(await apiKeyProvider.read(providers.run, first.id, firstOuts)).toMatchObject({
      id: first.id,
    });
    const wider = {
      name: "reader",
      permissions: { api: { instance_read: {}, instance_write: {} } },
    };
    expect(await apiKeyProvider.diff(providers.run, first.id, firstOuts, wider)).toEqual({
      changes: true,
      replaces: ["permissions"],
    });
    // Replaced as the engine does by default: the new key first, then the old one deleted.
    const second = await apiKeyProvider.create(providers.run, wider);
    const secondOuts = outsOf(second);
    await apiKeyProvider.delete(providers.run, first.id, firstOuts);
    const firstKey = new GpuCloudClient({ baseUrl: emulator.url, apiKey: String(firstOuts.key) });
    await expect(firstKey.instances.list()).rejects.toMatchObject({ status: 401 });
    expect(await apiKeyProvider.read(providers.run, first.id, firstOuts)).toEqual({});
    const secondKey = new GpuCloudClient({ baseUrl: emulator.url, apiKey: String(secondOuts.key) });
    await expect(secondKey.instances.list()).resolves.toBeDefined();
    await apiKeyProvider.delete(providers.run, second.id, secondOuts);
  });

  it("Instance: a key removed from sshKeyIds is detached in place, and read then sees no drift", async () => {
    const key = outsOf(await sshKeyProvider.create(providers.run, { publicKey: ed25519 }));
    const inputs = instanceInputsSchema.parse({
      askId: 31001,
      image: "img",
      diskGb: 10,
      pollIntervalSeconds: 0.05,
      owner: "p/s/gpu",
      stackToken: newStackToken(),
    });
    const created = await instanceProvider.create(providers.run, {
      ...inputs,
      sshKeyIds: [key.sshKeyId],
    });
    const instanceId = outsOf(created).instanceId;
    expect((await client.sshKeys.onInstance(instanceId)).map((k) => k.id)).toEqual([key.sshKeyId]);
    const detached = outsOf(
      await instanceProvider.update?.(providers.run, created.id, outsOf(created), inputs),
    );
    expect(await client.sshKeys.onInstance(instanceId)).toEqual([]);
    // Found as recorded: no inputs returned, so refresh records no change.
    const read = await instanceProvider.read(providers.run, created.id, detached);
    expect(read.inputs).toBeUndefined();
    await client.instances.destroy(instanceId);
    await sshKeyProvider.delete(providers.run, String(key.sshKeyId), key);
  });

  it("Instance: listing a key the account lacks fails before anything is rented", async () => {
    await emulator.clearRequests();
    await expect(
      instanceProvider.create(providers.run, {
        askId: 31001,
        image: "ubuntu-22.04-vm",
        diskGb: 20,
        runtype: "vm",
        state: "running",
        sshKeyIds: [999],
        createTimeoutSeconds: 60,
        maxAttempts: 1,
        pollIntervalSeconds: 0.05,
      }),
    ).rejects.toThrow(
      /sshKeyIds: 999 is not an SSH key of the account \(it has none\)\. Nothing was rented\./,
    );
    expect(await emulator.writes()).toEqual([]);
    expect((await emulator.state()).instances).toEqual([]);
  });
});
