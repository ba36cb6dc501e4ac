import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { GpuCloudClient, GpuCloudError } from "../../provider/client";
import { repoRoot } from "../support/repo-root";
import type { TestEmulator } from "../support/emulator";
import { withStack } from "../support/pulumi-stack";
import {
  dynamicResources,
  emulatorConfig,
  expectNoLeak,
  outsideClient,
  program,
} from "../support/programs";
import { useEmulator } from "../support/use-emulator";

// Keys generated with ssh-keygen; the fingerprint is the one `ssh-keygen -lf` printed.
const ed25519 =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPhlKxSmAILXPiklFetxXJ412q6DLq52hOZ2JGxdT6n0 dev@example";
const ed25519Fingerprint = "SHA256:BaVHplQrFzxdANndtnYRgO8syaCFIBY7cpwSY3G7N0k";
const ecdsa =
  "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBCEc8sKajv0D6PWHL0mIAU+wQOERq0nKHPkrZhW1eJcMXUObCCjvharHk9pGEWcs6UGulzhyDBpNeCTwcXnPIAw= ci";
const ecdsaFingerprint = "SHA256:G0aSOB1K9lAkZf3rW0QVZw2JgiuzaPwyVsr43dn8dvE";
const rsa =
  "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQCpQkFjaEeRPx9dzHHuRV0M+4hLEyfGYtrHxz1NpMu3HLR4A3oMq53AbS38I8Lvglx4xzKrokYmIK2H5M84UuLCDHHCfdJwrSue4+wAvX3IMjmm6ktjhYIZfZ9lrFkE6llx6brTJRdaxq7DFSAPsCLCwAsD/rqiZBjHkYV5uWxwOw==";

const instanceArgs = {
  askId: 31001,
  image: "ubuntu-22.04-vm",
  diskGb: 20,
  pollIntervalSeconds: 0.05,
};

const sshKeyProgram = (publicKey: string) =>
  program(`
const key = new gpucloud.SshKey("laptop", { publicKey: ${JSON.stringify(publicKey)} });
exports.sshKeyId = key.sshKeyId;
exports.fingerprint = key.fingerprint;
`);

const apiKeyProgram = (args: Record<string, unknown>) =>
  program(`
const reader = new gpucloud.ApiKey("reader", ${JSON.stringify(args)});
exports.apiKeyId = reader.apiKeyId;
exports.key = reader.key;
`);

/** A VM and, unless `withKey` is false, an SshKey of the same program that it lists. */
const vmProgram = (options: { withKey: boolean; sshKeyIds?: number[] }) =>
  program(`
const key = ${options.withKey ? `new gpucloud.SshKey("laptop", { publicKey: ${JSON.stringify(ed25519)} })` : "undefined"};
const vm = new gpucloud.Instance("vm", {
  ...${JSON.stringify({ ...instanceArgs, runtype: "vm" })},
  ${options.sshKeyIds ? `sshKeyIds: ${JSON.stringify(options.sshKeyIds)},` : options.withKey ? "sshKeyIds: [key.sshKeyId]," : ""}
});
exports.instanceId = vm.instanceId;
exports.sshKeyId = key ? key.sshKeyId : undefined;
`);

/** The status of a call made with `key`: 200 when it succeeds, else the service's status. */
async function statusWith(
  emulator: TestEmulator,
  key: string,
  call: (client: GpuCloudClient) => Promise<unknown>,
): Promise<number | undefined> {
  const client = new GpuCloudClient({ baseUrl: emulator.url, apiKey: key });
  try {
    await call(client);
    return 200;
  } catch (error) {
    if (error instanceof GpuCloudError) return error.status;
    throw error;
  }
}

const attaches = (requests: { method: string; path: string }[]) =>
  requests.filter((r) => r.method === "POST" && /^\/api\/v0\/instances\/\d+\/ssh\/$/.test(r.path));
const detaches = (requests: { method: string; path: string }[]) =>
  requests.filter(
    (r) => r.method === "DELETE" && /^\/api\/v0\/instances\/\d+\/ssh\/\d+\/$/.test(r.path),
  );

describe("SshKey and ApiKey under the real Pulumi CLI", () => {
  const { emulator } = useEmulator({ per: "test", bootPolls: 1 });

  it("SshKey: creates, refreshes unchanged, updates in place, restores outside changes and destroys", async () => {
    await withStack(
      { program: sshKeyProgram(ed25519), config: emulatorConfig(emulator) },
      async ({ stack, setProgram, output }) => {
        const onOutput = (text: string) => output.push(text);
        const up = await stack.up({ onOutput });
        expect(up.summary.resourceChanges).toEqual({ create: 2 });
        expect(up.outputs["fingerprint"]?.value).toBe(ed25519Fingerprint);
        const [created] = (await emulator.state()).sshKeys;
        expect(created?.publicKey).toBe(ed25519);
        expect(up.outputs["sshKeyId"]?.value).toBe(created?.id);
        const id = created?.id ?? 0;

        expect((await stack.refresh({ onOutput })).summary.resourceChanges).toEqual({ same: 2 });
        expect((await stack.up({ onOutput })).summary.resourceChanges).toEqual({ same: 2 });

        // A new key changes in place: same id, new fingerprint.
        await setProgram(sshKeyProgram(ecdsa));
        const update = await stack.up({ onOutput });
        expect(update.summary.resourceChanges).toEqual({ same: 1, update: 1 });
        expect(update.outputs["fingerprint"]?.value).toBe(ecdsaFingerprint);
        expect((await emulator.state()).sshKeys).toEqual([{ id, publicKey: ecdsa }]);

        // Changed outside Pulumi: refresh records it, up puts the declared key back in place.
        await outsideClient(emulator).sshKeys.update(id, rsa);
        const drift = await stack.refresh({ onOutput });
        expect(drift.summary.resourceChanges).toEqual({ same: 1, update: 1 });
        expect((await stack.up({ onOutput })).summary.resourceChanges).toEqual({
          same: 1,
          update: 1,
        });
        expect((await emulator.state()).sshKeys).toEqual([{ id, publicKey: ecdsa }]);

        // Deleted outside Pulumi: refresh drops it, up registers it again.
        await outsideClient(emulator).sshKeys.delete(id);
        const gone = await stack.refresh({ onOutput });
        expect(gone.summary.resourceChanges).toEqual({ same: 1, delete: 1 });
        const again = await stack.up({ onOutput });
        expect(again.summary.resourceChanges).toEqual({ same: 1, create: 1 });
        expect((await emulator.state()).sshKeys).toEqual([
          { id: Number(again.outputs["sshKeyId"]?.value), publicKey: ecdsa },
        ]);

        await stack.destroy({ onOutput });
        expect((await emulator.state()).sshKeys).toEqual([]);
      },
    );
  });

  it("ApiKey: a scoped key works with exactly its scope; replaces, restores, revokes, never printed", async () => {
    const scope = { permissions: { api: { instance_read: {} } } };
    await withStack(
      { program: apiKeyProgram(scope), config: emulatorConfig(emulator) },
      async ({ stack, setProgram, exportState, output }) => {
        const onOutput = (text: string) => output.push(text);
        const up = await stack.up({ onOutput });
        expect(up.summary.resourceChanges).toEqual({ create: 2 });
        expect(up.outputs["key"]?.secret).toBe(true);
        const firstKey = String(up.outputs["key"]?.value);
        const firstId = Number(up.outputs["apiKeyId"]?.value);
        const listed = await outsideClient(emulator).apiKeys.list();
        expect(listed.find((key) => key.id === firstId)).toMatchObject({
          name: "reader", // the resource's name, by default
          rights: JSON.stringify(scope.permissions),
        });

        // Exactly its scope: instances can be read, not written; other categories are closed.
        expect(await statusWith(emulator, firstKey, (c) => c.instances.list())).toBe(200);
        expect(await statusWith(emulator, firstKey, (c) => c.instances.relabel(1, "x"))).toBe(403);
        expect(await statusWith(emulator, firstKey, (c) => c.secrets.list())).toBe(403);

        expect((await stack.refresh({ onOutput })).summary.resourceChanges).toEqual({ same: 2 });
        expect((await stack.up({ onOutput })).summary.resourceChanges).toEqual({ same: 2 });

        // A wider scope replaces the key: a new key that can write, the old one revoked.
        await setProgram(
          apiKeyProgram({ permissions: { api: { instance_read: {}, instance_write: {} } } }),
        );
        const replaced = await stack.up({ onOutput });
        expect(replaced.summary.resourceChanges).toEqual({ same: 1, replace: 1 });
        const secondKey = String(replaced.outputs["key"]?.value);
        expect(secondKey).not.toBe(firstKey);
        expect(await statusWith(emulator, firstKey, (c) => c.instances.list())).toBe(401);
        // Past the scope check now: the service looks for the instance (there is none).
        expect(await statusWith(emulator, secondKey, (c) => c.instances.relabel(1, "x"))).toBe(404);

        // Revoked outside Pulumi: refresh drops it, up creates a new key.
        await outsideClient(emulator).apiKeys.delete(Number(replaced.outputs["apiKeyId"]?.value));
        const gone = await stack.refresh({ onOutput });
        expect(gone.summary.resourceChanges).toEqual({ same: 1, delete: 1 });
        const restored = await stack.up({ onOutput });
        expect(restored.summary.resourceChanges).toEqual({ same: 1, create: 1 });
        const thirdKey = String(restored.outputs["key"]?.value);
        expect(await statusWith(emulator, thirdKey, (c) => c.instances.list())).toBe(200);

        // The keys are in state only encrypted, and never in what the CLI printed.
        expect(JSON.stringify(dynamicResources(await exportState(true)))).toContain(thirdKey);
        expectNoLeak(
          [await exportState(false), ...output],
          [firstKey, secondKey, thirdKey, emulator.apiKey],
        );

        await stack.destroy({ onOutput });
        expect(await statusWith(emulator, thirdKey, (c) => c.instances.list())).toBe(401);
        expect((await outsideClient(emulator).apiKeys.list()).map((key) => key.id)).toEqual([1]);
      },
    );
  });

  it("a VM with an SshKey of the same program passes preview, gets the key, and detaches it in place", async () => {
    await withStack(
      { program: vmProgram({ withKey: true }), config: emulatorConfig(emulator) },
      async ({ stack, preview, setProgram, output }) => {
        const onOutput = (text: string) => output.push(text);
        // The account has no key: only the declared SshKey lets the VM through.
        expect((await outsideClient(emulator).users.current()).hasSshKey).toBe(false);
        await preview();
        expect(await emulator.writes()).toEqual([]);

        const up = await stack.up({ onOutput });
        expect(up.summary.resourceChanges).toEqual({ create: 4 });
        const instanceId = Number(up.outputs["instanceId"]?.value);
        const keyId = Number(up.outputs["sshKeyId"]?.value);
        const client = outsideClient(emulator);
        expect((await client.sshKeys.onInstance(instanceId)).map((key) => key.id)).toEqual([keyId]);
        const writes = await emulator.writes();
        // The key is registered before the VM is rented, and attached once it runs, before
        // the VM is handed over (relabelled).
        expect(writes.map((w) => `${w.method} ${w.path}`)).toEqual([
          "POST /api/v0/ssh/",
          "PUT /api/v0/asks/31001/",
          `POST /api/v0/instances/${instanceId}/ssh/`,
          `PUT /api/v0/instances/${instanceId}/`,
        ]);

        expect((await stack.refresh({ onOutput })).summary.resourceChanges).toEqual({ same: 4 });

        // Detached outside Pulumi: refresh sees it, up attaches it again, in place.
        await client.sshKeys.detach(instanceId, keyId);
        expect((await stack.refresh({ onOutput })).summary.resourceChanges).toEqual({
          same: 3,
          update: 1,
        });
        await emulator.clearRequests();
        const reattached = await stack.up({ onOutput });
        expect(reattached.summary.resourceChanges).toEqual({ same: 3, update: 1 });
        expect(attaches(await emulator.writes())).toHaveLength(1);
        expect((await client.sshKeys.onInstance(instanceId)).map((key) => key.id)).toEqual([keyId]);

        // Removed from the list: detached in place, the VM (and the account key) stay.
        await emulator.clearRequests();
        await setProgram(
          program(`
const key = new gpucloud.SshKey("laptop", { publicKey: ${JSON.stringify(ed25519)} });
const vm = new gpucloud.Instance("vm", ${JSON.stringify({ ...instanceArgs, runtype: "vm" })});
exports.instanceId = vm.instanceId;
exports.sshKeyId = key.sshKeyId;
`),
        );
        const detached = await stack.up({ onOutput });
        expect(detached.summary.resourceChanges).toEqual({ same: 3, update: 1 });
        expect(detached.outputs["instanceId"]?.value).toBe(instanceId);
        expect(detaches(await emulator.writes())).toHaveLength(1);
        expect(await client.sshKeys.onInstance(instanceId)).toEqual([]);
        expect((await emulator.state()).sshKeys.map((key) => key.id)).toEqual([keyId]);
        expect((await stack.refresh({ onOutput })).summary.resourceChanges).toEqual({ same: 4 });

        await stack.destroy({ onOutput });
        const state = await emulator.state();
        expect([state.instances, state.sshKeys]).toEqual([[], []]);
      },
    );
  });

  it("a VM listing a key the account lacks fails at create, renting nothing", async () => {
    await withStack(
      {
        program: vmProgram({ withKey: false, sshKeyIds: [999] }),
        config: emulatorConfig(emulator),
      },
      async ({ stack, preview }) => {
        await preview();
        await expect(stack.up()).rejects.toThrow(
          /sshKeyIds: 999 is not an SSH key of the account \(it has none\)\. Nothing was rented\./,
        );
        expect(await emulator.writes()).toEqual([]);
        expect((await emulator.state()).instances).toEqual([]);
      },
    );
  });

  it("the scoped-key example: the instance gets an instance_read key as a secret", async () => {
    const source = ts.transpileModule(
      readFileSync(path.join(repoRoot, "examples", "scoped-key", "index.ts"), "utf8"),
      { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } },
    ).outputText;
    await withStack(
      {
        program: source,
        projectName: "scoped-key",
        config: {
          ...emulatorConfig(emulator),
          "scoped-key:sshPublicKey": { value: ed25519 },
        },
      },
      async ({ stack, exportState, output }) => {
        const onOutput = (text: string) => output.push(text);
        const up = await stack.up({ onOutput });
        expect(up.summary.resourceChanges).toEqual({ create: 5 });
        expect(up.outputs["readerKey"]?.secret).toBe(true);
        expect(up.outputs["sshKeyFingerprint"]?.value).toBe(ed25519Fingerprint);
        const key = String(up.outputs["readerKey"]?.value);
        const instanceId = Number(up.outputs["instanceId"]?.value);

        // The instance was given the key; with it, a read succeeds and a write gets 403.
        const [instance] = (await emulator.state()).instances;
        expect(instance?.["env"]).toMatchObject({ GPUCLOUD_API_KEY: key });
        expect(await statusWith(emulator, key, (c) => c.instances.show(instanceId))).toBe(200);
        expect(
          await statusWith(emulator, key, (c) => c.instances.relabel(instanceId, "taken over")),
        ).toBe(403);
        expect((await emulator.state()).instances[0]?.label).toBe("monitor");

        expect((await stack.refresh({ onOutput })).summary.resourceChanges).toEqual({ same: 5 });
        expectNoLeak([await exportState(false), ...output], [key, emulator.apiKey]);

        await stack.destroy({ onOutput });
        expect(await statusWith(emulator, key, (c) => c.instances.list())).toBe(401);
        const state = await emulator.state();
        expect([state.instances, state.sshKeys]).toEqual([[], []]);
      },
    );
  });
});
