import { GpuCloudClient } from "../../provider/client";
import { implementation as apiKeyProvider } from "../../provider/resources/api-key";
import { type InstanceOutputs } from "../../provider/resources/instance";
import { InstanceLeftBehindError } from "../../provider/renting/errors";
import { attachAfterRunning } from "../../provider/renting/ssh-keys";
import { implementation as sshKeyProvider } from "../../provider/resources/ssh-key";
import { useEmulator } from "../support/use-emulator";

const ed25519 =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPhlKxSmAILXPiklFetxXJ412q6DLq52hOZ2JGxdT6n0 dev@example";

// The SshKey and ApiKey providers' methods called directly, for what a whole program cannot
// provoke on demand: a create whose reply is lost, an attach that fails on a running instance.
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
});
