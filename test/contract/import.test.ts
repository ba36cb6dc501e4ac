import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { encodeOnstart } from "../../provider/shared/onstart";
import { secretOf } from "../../provider/native/secrets";
import { GpuCloudClient } from "../../provider/client";
import { implementation as apiKeyProvider } from "../../provider/resources/api-key";
import { implementation as endpointProvider } from "../../provider/resources/endpoint";
import { implementation as instanceProvider } from "../../provider/resources/instance";
import { isLeftoverOf } from "../../provider/renting/identity";
import { implementation as secretProvider } from "../../provider/resources/secret";
import { implementation as sshKeyProvider } from "../../provider/resources/ssh-key";
import { implementation as templateProvider } from "../../provider/resources/template";
import { implementation as volumeProvider } from "../../provider/resources/volume";
import { implementation as webhookProvider } from "../../provider/resources/webhook";
import { implementation as workerGroupProvider } from "../../provider/resources/worker-group";
import { searchQueryOf } from "../../provider/resources/worker-group/diff";
import type { ResourceImplementation } from "../../provider/shared/resource-implementation";
import type { Run } from "../../provider/run/run";
import {
  configurePlugin,
  importThrough,
  type Plugin,
  type Props,
  startPlugin,
} from "../support/native-plugin";
import { useEmulator } from "../support/use-emulator";
import { createTemplate } from "./serverless-support";

// `pulumi import`: each resource made outside Pulumi (through the client), then read by id with
// nothing recorded, as the engine's import calls Read. The inputs read must pass the module's
// own check (the engine checks them, olds = news = the inputs read) and diff against the
// outputs read with no change, so that the next `up` of a program declaring them changes
// nothing. Then the same through the built plugin (Read with no properties over gRPC).

jest.setTimeout(60_000);

const ED25519 =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGgGqKZ6Wq2nTzZ8e3xvYb0wJ5m9cQm1nq3fJq7pY2xK dev@laptop";

type AnyProvider = ResourceImplementation<Props, Props>;
const as = (provider: unknown): AnyProvider => provider as AnyProvider;

/** What the Instance class (or the plugin, from the URN and its state) adds to the inputs. */
const instanceContext = { owner: "proj/dev/imported", stackToken: "tokenOfThisStack123456" };

/**
 * Reads `id` as import does and checks what the next up sees: the inputs pass check unchanged
 * and diff against the outputs with no change; a refresh then finds it as recorded.
 */
async function imported(
  run: Run,
  provider: AnyProvider,
  id: string,
  added: Props = {},
): Promise<{ id: string; props: Props; inputs: Props }> {
  const read = await provider.read(run, id, undefined);
  expect(read.id).toEqual(expect.any(String));
  expect(read.props).toBeDefined();
  expect(read.inputs).toBeDefined();
  const inputs = read.inputs ?? {};
  const props = read.props ?? {};
  const checked = await provider.check(run, inputs, { ...inputs, ...added });
  expect(checked.failures ?? []).toEqual([]);
  expect(checked.inputs).toEqual({ ...inputs, ...added });
  expect(await provider.diff(run, read.id ?? id, props, checked.inputs ?? inputs)).toMatchObject({
    changes: false,
  });
  expect(await provider.diff(run, read.id ?? id, props, inputs)).toMatchObject({ changes: false });
  // A refresh right after: found as recorded, nothing drifted.
  expect(await provider.read(run, read.id ?? id, props)).toEqual({ id: read.id, props });
  return { id: read.id ?? id, props, inputs };
}

describe("pulumi import: read by id with nothing recorded", () => {
  let client!: GpuCloudClient;
  const providers = useEmulator({ per: "file", bootPolls: 1, market: false });
  const { emulator } = providers;
  beforeAll(() => {
    client = new GpuCloudClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  });

  it("Secret: the key, no value (masked); the program may leave it out or set it in place", async () => {
    await client.secrets.create("BY_HAND", "hand-made.value");
    await client.secrets.create("EMPTY_ONE", "");
    const secret = await imported(providers.run, as(secretProvider), "by_hand");
    expect(secret).toEqual({
      id: "BY_HAND",
      props: { key: "BY_HAND" },
      inputs: { key: "BY_HAND" },
    });
    // An empty value is known exactly.
    expect((await imported(providers.run, as(secretProvider), "EMPTY_ONE")).inputs).toEqual({
      key: "EMPTY_ONE",
      value: "",
    });
    expect(await secretProvider.read(providers.run, "NOT_THERE", undefined)).toEqual({});

    // The program declares a value: an update in place, not a replacement.
    const news = { key: "BY_HAND", value: "declared.value" };
    expect(
      (await secretProvider.check?.(providers.run, secret.inputs as never, news))?.failures,
    ).toEqual([]);
    expect(
      await secretProvider.diff?.(providers.run, "BY_HAND", secret.props as never, news),
    ).toEqual({
      changes: true,
      replaces: [],
    });
    await secretProvider.update?.(providers.run, "BY_HAND", secret.props as never, news);
    expect((await emulator.secrets())["BY_HAND"]).toBe("declared.value");

    // A new secret, or another key, still needs a value.
    const failures = async (olds: Props, news: Props) =>
      (await secretProvider.check?.(providers.run, olds as never, news as never))?.failures?.map(
        (f) => f.reason.split(":")[0],
      );
    expect(await failures({}, { key: "NEW_ONE" })).toEqual(["value"]);
    expect(await failures({ key: "BY_HAND" }, { key: "OTHER" })).toEqual(["value"]);
    expect(await failures({ key: "BY_HAND", value: "x" }, { key: "BY_HAND" })).toEqual(["value"]);
    await secretProvider.delete?.(providers.run, "BY_HAND", secret.props as never);
    expect(await emulator.secrets()).not.toHaveProperty("BY_HAND");
  });

  it("Volume: by name or number, its size and machine (the service shows no ask)", async () => {
    const { volumeName, volumeId } = await client.volumes.acceptVolumeAsk(21001, 20);
    const volume = await imported(providers.run, as(volumeProvider), volumeName);
    expect(volume.inputs).toEqual({
      volumeOfferQuery: { machineId: { eq: volume.props["machineId"] } },
      sizeGb: 20,
    });
    expect(volume.props).toMatchObject({ volumeName, volumeId, sizeGb: 20 });
    expect((await volumeProvider.read(providers.run, String(volumeId), undefined)).id).toBe(
      volumeName,
    );
    // A bigger size is a replacement, as for any volume.
    expect(
      await as(volumeProvider).diff(providers.run, volumeName, volume.props, {
        ...volume.inputs,
        sizeGb: 30,
      }),
    ).toMatchObject({ changes: true, replaces: ["sizeGb"] });
    await expect(volumeProvider.read(providers.run, "vol-1", undefined)).rejects.toThrow(
      /V\.<number>/,
    );
  });

  it("Webhook: every field; the signing secret is not shown, secretRotation rotates it", async () => {
    const created = await client.webhooks.create({
      webhook_url: "https://hooks.example.com/gpucloud",
      event_types: ["client:low_credit"],
      name: "made by hand",
    });
    const webhook = await imported(providers.run, as(webhookProvider), String(created.id));
    expect(webhook.inputs).toEqual({
      url: "https://hooks.example.com/gpucloud",
      eventTypes: ["client:low_credit"],
      name: "made by hand",
    });
    expect(webhook.props).not.toHaveProperty("webhookSecret");
    const rotated = await as(webhookProvider).update?.(providers.run, webhook.id, webhook.props, {
      ...webhook.inputs,
      secretRotation: "1",
    });
    expect(rotated?.outs?.webhookSecret).toEqual(expect.any(String));
  });

  it("SshKey: the public key", async () => {
    const created = await client.sshKeys.create(ED25519);
    const key = await imported(providers.run, as(sshKeyProvider), String(created.id));
    expect(key.inputs).toEqual({ publicKey: ED25519 });
    expect(key.props).toMatchObject({ sshKeyId: created.id, fingerprint: /^SHA256:/ });
  });

  it("ApiKey: name and scope without the key; the provider's own key refused", async () => {
    const created = await client.apiKeys.create({
      name: "dashboard",
      permissions: { api: { instance_read: {} } },
    });
    const key = await imported(providers.run, as(apiKeyProvider), String(created.id));
    expect(key.inputs).toEqual({ name: "dashboard", permissions: { api: { instance_read: {} } } });
    expect(key.props).toEqual({ ...key.inputs, apiKeyId: created.id });
    const own = (await client.users.current()).keyId;
    await expect(apiKeyProvider.read(providers.run, String(own), undefined)).rejects.toThrow(
      `api key ${own} cannot be imported: it is the key this provider is configured with`,
    );
  });

  it("Template: every field by its numeric id; a registry login without its password", async () => {
    const created = await client.templates.create({
      name: "vllm server",
      image: "vllm/vllm-openai",
      tag: "v0.6",
      env: "-e MODEL_ID=meta/llama-3 -p 8000:8000",
      runtype: "ssh",
      ssh_direct: true,
      use_ssh: true,
      recommended_disk_space: 50,
      desc: "inference",
      private: true,
      extra_filters: { cuda_max_good: { gte: 12.6 } },
      docker_login_repo: "ghcr.io",
      docker_login_user: "me",
      docker_login_pass: "dckr_pat_import-secret",
    });
    const template = await imported(providers.run, as(templateProvider), String(created.id));
    expect(template.inputs).toMatchObject({
      name: "vllm server",
      image: "vllm/vllm-openai",
      tag: "v0.6",
      env: { MODEL_ID: "meta/llama-3" },
      ports: ["8000:8000"],
      diskGb: 50,
      searchFilters: { cudaMaxGood: { gte: 12.6 } },
    });
    // The service never shows the password: kept as it is until the program declares one.
    expect(template.inputs["dockerLogin"]).toEqual({ repo: "ghcr.io", user: "me", password: "" });
    expect(template.props).toMatchObject({ templateId: created.id, hashId: created.hash_id });
    expect(JSON.stringify(template)).not.toContain("dckr_pat_import-secret");
    const login = { repo: "ghcr.io", user: "me", password: "dckr_pat_declared" };
    const declared = { ...template.inputs, dockerLogin: login };
    const templates = as(templateProvider);
    expect((await templates.check(providers.run, template.inputs, declared))?.failures).toEqual([]);
    expect(
      await templates.diff(providers.run, template.id, template.props, declared),
    ).toMatchObject({
      changes: true,
      replaces: [],
    });
    // A new template, or another registry, still needs a password.
    const reasons = async (olds: Props, news: Props) =>
      (await templates.check(providers.run, olds, news))?.failures?.map(
        (f) => f.reason.split(":")[0],
      );
    expect(await reasons({}, template.inputs)).toEqual(["dockerLogin.password"]);
    expect(
      await reasons(template.inputs, {
        ...template.inputs,
        dockerLogin: { repo: "docker.io", user: "me", password: "" },
      }),
    ).toEqual(["dockerLogin.password"]);
  });

  it("Endpoint and WorkerGroup: every field the service holds", async () => {
    const endpointId = await client.endpoints.create({
      endpoint_name: "by-hand",
      min_load: 1,
      target_util: 0.8,
      cold_mult: 2,
      cold_workers: 0,
      max_workers: 4,
    });
    const endpoint = await imported(providers.run, as(endpointProvider), String(endpointId));
    expect(endpoint.inputs).toEqual({
      endpointName: "by-hand",
      minLoad: 1,
      targetUtil: 0.8,
      coldMult: 2,
      coldWorkers: 0,
      maxWorkers: 4,
      deleteTimeoutSeconds: 600,
    });

    const hash = await createTemplate(emulator, "workers");
    const groupId = await client.workerGroups.create({
      endpoint_id: endpointId,
      template_hash: hash,
      search_params: JSON.stringify(searchQueryOf({ gpuName: "RTX 3090" })),
      launch_args: "--env LOG_LEVEL=debug",
      cold_workers: 0,
    });
    const group = await imported(providers.run, as(workerGroupProvider), String(groupId));
    expect(group.inputs).toMatchObject({
      endpointId,
      templateHashId: hash,
      offerQuery: { gpuName: { eq: "RTX 3090" } },
      launchArgs: "--env LOG_LEVEL=debug",
    });
    expect(group.props).toMatchObject({ workerGroupId: groupId });
  });

  describe("Instance", () => {
    it("what it runs, without the markers; not a leftover; destroyed by delete", async () => {
      const instanceId = await client.instances.create(31001, {
        image: "pytorch/pytorch",
        disk: 12,
        onstart: "echo hello",
        env: { HF_HOME: "/data/hf" },
        label: "made by hand",
        runtype: "jupyter",
      });
      const instance = await imported(
        providers.run,
        as(instanceProvider),
        String(instanceId),
        instanceContext,
      );
      expect(instance.inputs).toEqual({
        askId: 31001,
        image: "pytorch/pytorch",
        diskGb: 12,
        onstart: "echo hello",
        env: { HF_HOME: "/data/hf" },
        label: "made by hand",
        runtype: "jupyter",
        createTimeoutSeconds: 1200,
        maxAttempts: 3,
        state: "running",
        pollIntervalSeconds: 3,
      });
      expect(instance.props).toMatchObject({
        instanceId,
        attempts: [{ askId: 31001, instanceId }],
        offer: { askId: 31001 },
      });
      const shown = await client.instances.show(instanceId);
      expect(shown && isLeftoverOf(shown, instanceContext.stackToken)).toBe(false);
      // Managed now: a new label relabels in place, another disk replaces it.
      expect(
        await as(instanceProvider).diff(providers.run, String(instanceId), instance.props, {
          ...instance.inputs,
          label: "renamed",
        }),
      ).toMatchObject({ changes: true, replaces: [] });
      expect(
        await as(instanceProvider).diff(providers.run, String(instanceId), instance.props, {
          ...instance.inputs,
          diskGb: 64,
        }),
      ).toMatchObject({ changes: true, replaces: ["diskGb"] });
      // Destroy destroys it, as any instance the stack records.
      await instanceProvider.delete?.(providers.run, String(instanceId), instance.props as never);
      expect(await client.instances.show(instanceId)).toBeUndefined();
    });

    it("a bid, a linked volume, and another stack's instance (markers dropped, onstart decoded)", async () => {
      const bid = await client.instances.create(31001, { image: "img", disk: 10, price: 0.2 });
      const bidImport = await imported(
        providers.run,
        as(instanceProvider),
        String(bid),
        instanceContext,
      );
      // Its base price stands for the bid: dph_total also holds its disk's storage.
      const shownBid = await client.instances.show(bid);
      expect(bidImport.inputs["price"]).toBe(shownBid?.dph_base);
      expect(bidImport.inputs["price"]).toBeLessThan(Number(shownBid?.dph_total));
      expect(bidImport.inputs).not.toHaveProperty("label");
      // Another price is a bid change in place.
      expect(
        await as(instanceProvider).diff(providers.run, String(bid), bidImport.props, {
          ...bidImport.inputs,
          price: 0.5,
        }),
      ).toMatchObject({ changes: true, replaces: [] });

      // A linked volume (ask 21001 and ask 31001 share machine 41207).
      // (Through the provider's client: its list of volumes, shared for a moment, then knows it.)
      const { volumeId } = await providers.run.client.volumes.acceptVolumeAsk(21001, 15);
      const linked = await client.instances.create(31001, {
        image: "img",
        disk: 10,
        volume_info: { create_new: false, volume_id: volumeId, mount_path: "/data" },
      });
      const linkedImport = await imported(
        providers.run,
        as(instanceProvider),
        String(linked),
        instanceContext,
      );
      expect(linkedImport.inputs["volume"]).toEqual({ volumeId, mountPath: "/data" });

      // Stopped by hand: recorded stopped, so that the next up does not start it.
      await client.instances.setState(linked, "stopped");
      const stopped = await as(instanceProvider).read(providers.run, String(linked), undefined);
      expect(stopped.inputs).toMatchObject({ state: "stopped" });

      const script = `echo ${"x".repeat(5000)}`;
      const encoded = encodeOnstart(script);
      if (!encoded.ok) throw new Error("the script does not fit");
      const other = await client.instances.create(31002, {
        image: "img",
        disk: 10,
        onstart: encoded.command,
        env: {
          A: "1",
          PULUMI_GPUCLOUD_STACK: "anotherStacksToken0000",
          PULUMI_GPUCLOUD_OWNER: "p/s/r",
          PULUMI_GPUCLOUD_SPEC: "0".repeat(32),
          PULUMI_GPUCLOUD_CREATE_TOKEN: "t",
        },
        label: "theirs",
      });
      const otherImport = await imported(
        providers.run,
        as(instanceProvider),
        String(other),
        instanceContext,
      );
      expect(otherImport.inputs).toMatchObject({ env: { A: "1" }, onstart: script });

      // Still being created by some stack: that stack's to settle, not to import.
      const leftover = await client.instances.create(31003, {
        image: "img",
        disk: 10,
        label: "pulumi-gpucloud:creating:anotherStacksToken0000",
      });
      await expect(
        instanceProvider.read(providers.run, String(leftover), undefined),
      ).rejects.toThrow(
        `instance ${leftover} cannot be imported: it carries a being-created label`,
      );
      expect(await instanceProvider.read(providers.run, "999999", undefined)).toEqual({});
    });
  });

  describe("through the native plugin (Read with no properties)", () => {
    let plugin: Plugin;
    beforeEach(async () => {
      plugin = await startPlugin();
      await configurePlugin(plugin, emulator);
    });
    afterEach(async () => {
      await plugin.stop();
      expect(plugin.stdout()).toMatch(/^\d+\n$/);
      expect(plugin.stderr()).not.toContain(emulator.apiKey);
    });

    it("imports a Secret, an Instance and a Volume made by hand, with no change to make", async () => {
      await client.secrets.create("NATIVE_HAND", "hand.value");
      const secret = await importThrough(plugin, "Secret", "byhand", "native_hand");
      expect(secret).toMatchObject({ id: "NATIVE_HAND", inputs: { key: "NATIVE_HAND" } });
      expect(secret.failures).toEqual([]);
      expect(secret.changes).toBe(provproto.DiffResponse.DiffChanges.DIFF_NONE);
      expect(JSON.stringify(secret)).not.toContain("hand.value");

      const instanceId = await client.instances.create(31004, {
        image: "img",
        disk: 10,
        env: { TOKEN: "env-value" },
        label: "by hand",
      });
      const instance = await importThrough(plugin, "Instance", "gpu", String(instanceId));
      expect(instance.failures).toEqual([]);
      expect(instance.changes).toBe(provproto.DiffResponse.DiffChanges.DIFF_NONE);
      expect(instance.inputs).toMatchObject({ askId: 31004, image: "img", label: "by hand" });
      // The environment is read in plaintext and may hold credentials: recorded as a secret.
      expect(instance.inputs["env"]).toEqual(secretOf({ TOKEN: "env-value" }));
      expect(instance.outs["env"]).toEqual(secretOf({ TOKEN: "env-value" }));
      expect(instance.checked["env"]).toEqual(secretOf({ TOKEN: "env-value" }));
      // Checked as the class would: the owner from the URN, the provider's stack token.
      expect(instance.checked).toMatchObject({ owner: "native-test/dev/gpu" });
      expect(instance.checked["stackToken"]).toEqual(expect.any(String));

      const { volumeName } = await client.volumes.acceptVolumeAsk(21001, 15);
      const volume = await importThrough(plugin, "Volume", "data", volumeName);
      expect(volume.failures).toEqual([]);
      expect(volume.changes).toBe(provproto.DiffResponse.DiffChanges.DIFF_NONE);
    });

    it("imports an ApiKey without its key, and refuses the provider's own with the reason", async () => {
      const created = await client.apiKeys.create({
        name: "reader",
        permissions: { api: { instance_read: {} } },
      });
      const key = await importThrough(plugin, "ApiKey", "reader", String(created.id));
      expect(key.failures).toEqual([]);
      expect(key.changes).toBe(provproto.DiffResponse.DiffChanges.DIFF_NONE);
      expect(key.outs).not.toHaveProperty("key");
      const own = (await client.users.current()).keyId;
      await expect(importThrough(plugin, "ApiKey", "own", String(own))).rejects.toThrow(
        /cannot be imported: it is the key this provider is configured with/,
      );
    });
  });
});
