import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { GpuCloudClient, GpuCloudError } from "../../provider/client";
import { repoRoot } from "../support/repo-root";
import type { TestEmulator } from "../support/emulator";
import { withStack } from "../support/pulumi-stack";
import { dynamicResources, emulatorConfig, expectNoLeak, outsideClient } from "../support/programs";
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

// The VM rents another ask than the example's instance (31001).
const instanceArgs = {
  askId: 31003,
  image: "ubuntu-22.04-vm",
  diskGb: 20,
  pollIntervalSeconds: 0.05,
};

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

// One stack for what the engine adds to the account keys: the scoped-key example as users copy
// it, plus a VM listing the example's SshKey and an ApiKey named by its resource. What each
// provider's check, read, diff and CRUD do is proven by calling them directly:
// test/contract/account-key-providers.test.ts (a key the account lacks, outside changes, a
// replaced scope), test/unit/account-keys.test.ts (fingerprints, diff rules).
describe("SshKey and ApiKey under the real Pulumi CLI", () => {
  const { emulator } = useEmulator({ per: "test", bootPolls: 1 });

  it("the scoped-key example with a VM: preview with the key unknown, up, drift restored, in-place changes, a replaced scope, no leak, destroy revokes", async () => {
    const example = ts.transpileModule(
      readFileSync(path.join(repoRoot, "examples", "scoped-key", "index.ts"), "utf8"),
      { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } },
    ).outputText;
    const readScope = { api: { instance_read: {} } };
    // The example's SshKey (laptop) on a VM too, and an ApiKey whose name is its resource's.
    const withVm = (options: {
      vmKeys: boolean;
      plainScope: Record<string, unknown>;
    }) => `${example}
const plain = new gpucloud.ApiKey("reader", { permissions: ${JSON.stringify({ api: options.plainScope })} });
const vm = new gpucloud.Instance("vm", {
  ...${JSON.stringify({ ...instanceArgs, runtype: "vm" })},
  ${options.vmKeys ? "sshKeyIds: [laptop.sshKeyId]," : ""}
});
exports.vmId = vm.instanceId;
exports.sshKeyId = laptop.sshKeyId;
exports.plainKeyId = plain.apiKeyId;
exports.plainKey = plain.key;
`;
    await withStack(
      {
        program: withVm({ vmKeys: true, plainScope: readScope.api }),
        projectName: "scoped-key",
        config: {
          ...emulatorConfig(emulator),
          "scoped-key:sshPublicKey": { value: ed25519 },
        },
      },
      async ({ stack, preview, setProgram, exportState, output }) => {
        const onOutput = (text: string) => output.push(text);
        const client = outsideClient(emulator);
        // The account has no key: only the declared SshKey, unknown at preview, lets the VM through.
        expect((await client.users.current()).hasSshKey).toBe(false);
        await preview();
        expect(await emulator.writes()).toEqual([]);

        const up = await stack.up({ onOutput });
        expect(up.summary.resourceChanges).toEqual({ create: 7 });
        expect(up.outputs["readerKey"]?.secret).toBe(true);
        expect(up.outputs["plainKey"]?.secret).toBe(true);
        expect(up.outputs["sshKeyFingerprint"]?.value).toBe(ed25519Fingerprint);
        const readerKey = String(up.outputs["readerKey"]?.value);
        const firstPlainKey = String(up.outputs["plainKey"]?.value);
        const monitorId = Number(up.outputs["instanceId"]?.value);
        const vmId = Number(up.outputs["vmId"]?.value);
        const keyId = Number(up.outputs["sshKeyId"]?.value);
        expect((await emulator.state()).sshKeys).toEqual([{ id: keyId, publicKey: ed25519 }]);
        expect((await client.apiKeys.list()).find((key) => key.name === "reader")).toMatchObject({
          id: Number(up.outputs["plainKeyId"]?.value), // named by its resource, by default
          rights: JSON.stringify(readScope),
        });

        // The monitor was given the scoped key; with it, reads succeed and writes get 403.
        const monitor = (await emulator.state()).instances.find((i) => i.id === monitorId);
        expect(monitor?.["env"]).toMatchObject({ GPUCLOUD_API_KEY: readerKey });
        expect(await statusWith(emulator, readerKey, (c) => c.instances.show(monitorId))).toBe(200);
        expect(
          await statusWith(emulator, readerKey, (c) => c.instances.relabel(monitorId, "taken")),
        ).toBe(403);
        expect(await statusWith(emulator, readerKey, (c) => c.secrets.list())).toBe(403);
        expect((await emulator.state()).instances.find((i) => i.id === monitorId)?.label).toBe(
          "monitor",
        );
        for (const id of [monitorId, vmId]) {
          expect((await client.sshKeys.onInstance(id)).map((key) => key.id)).toEqual([keyId]);
        }
        // The key is registered before the VM is rented, and attached once it runs, before the
        // VM is handed over (relabelled).
        const vmWrites = (await emulator.writes())
          .map((w) => `${w.method} ${w.path}`)
          .filter((w) => /\/ssh\/$|asks\/31003\/|instances\/(\d+)\//.test(w))
          .filter((w) => !w.includes(`instances/${monitorId}/`));
        expect(vmWrites).toEqual([
          "POST /api/v0/ssh/",
          "PUT /api/v0/asks/31003/",
          `POST /api/v0/instances/${vmId}/ssh/`,
          `PUT /api/v0/instances/${vmId}/`,
        ]);

        expect((await stack.refresh({ onOutput })).summary.resourceChanges).toEqual({ same: 7 });

        // Changed outside Pulumi: the key's text, the VM's key detached, the plain key revoked.
        // One refresh records all three; up restores them in place and creates a new key.
        await client.sshKeys.update(keyId, rsa);
        await client.sshKeys.detach(vmId, keyId);
        await client.apiKeys.delete(Number(up.outputs["plainKeyId"]?.value));
        const drift = await stack.refresh({ onOutput });
        expect(drift.summary.resourceChanges).toEqual({ same: 4, update: 2, delete: 1 });
        await emulator.clearRequests();
        const restored = await stack.up({ onOutput });
        expect(restored.summary.resourceChanges).toEqual({ same: 4, update: 2, create: 1 });
        expect(attaches(await emulator.writes())).toHaveLength(1);
        expect((await emulator.state()).sshKeys).toEqual([{ id: keyId, publicKey: ed25519 }]);
        expect((await client.sshKeys.onInstance(vmId)).map((key) => key.id)).toEqual([keyId]);
        const secondPlainKey = String(restored.outputs["plainKey"]?.value);
        expect(await statusWith(emulator, secondPlainKey, (c) => c.instances.list())).toBe(200);

        // A new public key updates in place (same id, new fingerprint); the VM's list emptied
        // detaches in place (the VM and the key stay); a wider scope replaces the plain key.
        await stack.setConfig("scoped-key:sshPublicKey", { value: ecdsa });
        await setProgram(
          withVm({ vmKeys: false, plainScope: { instance_read: {}, instance_write: {} } }),
        );
        await emulator.clearRequests();
        const changed = await stack.up({ onOutput });
        expect(changed.summary.resourceChanges).toEqual({ same: 4, update: 2, replace: 1 });
        expect(changed.outputs["sshKeyFingerprint"]?.value).toBe(ecdsaFingerprint);
        expect((await emulator.state()).sshKeys).toEqual([{ id: keyId, publicKey: ecdsa }]);
        expect(changed.outputs["vmId"]?.value).toBe(vmId);
        expect(detaches(await emulator.writes())).toHaveLength(1);
        expect(await client.sshKeys.onInstance(vmId)).toEqual([]);
        const thirdPlainKey = String(changed.outputs["plainKey"]?.value);
        expect(thirdPlainKey).not.toBe(secondPlainKey);
        expect(await statusWith(emulator, secondPlainKey, (c) => c.instances.list())).toBe(401);
        // Past the scope check now: the service looks for the instance (there is none).
        expect(await statusWith(emulator, thirdPlainKey, (c) => c.instances.relabel(1, "x"))).toBe(
          404,
        );

        // The keys are in state only encrypted, and never in what the CLI printed.
        expect(JSON.stringify(dynamicResources(await exportState(true)))).toContain(readerKey);
        expectNoLeak(
          [await exportState(false), ...output],
          [readerKey, firstPlainKey, secondPlainKey, thirdPlainKey, emulator.apiKey],
        );

        await stack.destroy({ onOutput });
        for (const key of [readerKey, thirdPlainKey]) {
          expect(await statusWith(emulator, key, (c) => c.instances.list())).toBe(401);
        }
        const state = await emulator.state();
        expect([state.instances, state.sshKeys]).toEqual([[], []]);
        expect((await client.apiKeys.list()).map((key) => key.id)).toEqual([1]);
      },
    );
  });
});
