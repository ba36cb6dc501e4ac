import type { GpuCloudClient } from "../../provider/client";
import { withStack } from "../support/pulumi-stack";
import type { EmulatorState } from "../support/emulator";
import { useEmulator } from "../support/use-emulator";
import { emulatorConfig, expectNoLeak, outsideClient } from "../support/programs";
import { nativePluginDir } from "../support/yaml-stack";

// Resources made by hand (another tool, a person) brought under management with
// `pulumi import`, then declared in a YAML program: the next `up` recreates nothing.

const value = "by-hand.value-1";
const publicKey =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPhlKxSmAILXPiklFetxXJ412q6DLq52hOZ2JGxdT6n0 dev@example";

interface ImportCase {
  readonly name: string;
  /**
   * Makes the resource by hand; returns the id `pulumi import` takes and the resource's
   * declaration in the program (YAML, indented under `resources:`).
   */
  readonly make: (client: GpuCloudClient) => Promise<{ id: string; declaration: string }>;
}

const cases = {
  Secret: {
    name: "token",
    make: async (client) => {
      await client.secrets.create("BY_HAND", value);
      return {
        id: "BY_HAND",
        declaration: `
  token:
    type: gpucloud:index:Secret
    properties:
      key: BY_HAND
      value: \${byHandValue}`,
      };
    },
  },
  Volume: {
    name: "data",
    // The service does not say which ask a volume came from, only its machine: the program
    // declares the volume where it is (as import records it).
    make: async (client) => {
      const { volumeName, volumeId } = await client.volumes.acceptVolumeAsk(21001, 20);
      const volume = (await client.volumes.list()).find((listed) => listed.id === volumeId);
      return {
        id: volumeName,
        declaration: `
  data:
    type: gpucloud:index:Volume
    properties:
      volumeOfferQuery:
        machineId:
          eq: ${String(volume?.machine_id)}
      sizeGb: 20`,
      };
    },
  },
  Instance: {
    name: "gpu",
    make: async (client) => {
      const instanceId = await client.instances.create(31001, {
        image: "pytorch/pytorch:latest",
        disk: 20,
        label: "by-hand",
      });
      return {
        id: String(instanceId),
        declaration: `
  gpu:
    type: gpucloud:index:Instance
    properties:
      askId: 31001
      image: pytorch/pytorch:latest
      diskGb: 20
      label: by-hand`,
      };
    },
  },
  Webhook: {
    name: "alerts",
    make: async (client) => {
      const created = await client.webhooks.create({
        webhook_url: "https://hooks.example.com/gpu",
        event_types: ["client:low_credit"],
        name: "alerts",
      });
      return {
        id: String(created.id),
        declaration: `
  alerts:
    type: gpucloud:index:Webhook
    properties:
      url: https://hooks.example.com/gpu
      eventTypes: ["client:low_credit"]
      name: alerts`,
      };
    },
  },
  SshKey: {
    name: "laptop",
    make: async (client) => {
      const created = await client.sshKeys.create(publicKey);
      return {
        id: String(created.id),
        declaration: `
  laptop:
    type: gpucloud:index:SshKey
    properties:
      publicKey: ${publicKey}`,
      };
    },
  },
} satisfies Record<string, ImportCase>;

const programOf = (declarations: readonly string[]) => `name: yaml-import-e2e
runtime: yaml
plugins:
  providers:
    - name: gpucloud
      path: ${nativePluginDir}
config:
  byHandValue:
    type: string
    secret: true
resources:${declarations.join("")}
`;

describe("pulumi import into a YAML stack, with the native plugin", () => {
  const { emulator } = useEmulator({ per: "file", bootPolls: 0 });

  it("imports a secret, volume, instance, webhook and SSH key made by hand; up recreates none", async () => {
    // Made by hand; the program declares each as the service holds it.
    const client = outsideClient(emulator);
    const resources: { type: string; name: string; id: string }[] = [];
    const declarations: string[] = [];
    for (const [type, { name, make }] of Object.entries(cases)) {
      const { id, declaration } = await make(client);
      resources.push({ type: `gpucloud:index:${type}`, name, id });
      declarations.push(declaration);
    }
    const ids = (state: EmulatorState) => ({
      secrets: state.secrets,
      volumes: state.volumes.map((volume) => volume.id),
      instances: state.instances.map((instance) => instance.id),
      webhooks: state.webhooks.map((webhook) => webhook.id),
      sshKeys: state.sshKeys.map((key) => key.id),
    });
    const before = ids(await emulator.state());
    const config = {
      ...emulatorConfig(emulator),
      "yaml-import-e2e:byHandValue": { value, secret: true },
    };
    await withStack(
      {
        language: "yaml",
        program: { text: programOf(declarations) },
        config,
        stackName: "imported",
      },
      async ({ stack, exportState }) => {
        const output: string[] = [];
        const onOutput = (line: string) => output.push(line);
        await emulator.clearRequests();

        const imported = await stack.import({
          resources,
          protect: false,
          generateCode: false,
          onOutput,
        });
        expect(imported.summary.resourceChanges).toEqual({ create: 1, import: resources.length });
        // What import records passes the provider's own checks (the CLI warns otherwise).
        expect(output.join("")).not.toContain("failed to validate");
        expect(await emulator.writes()).toEqual([]);

        // The service shows a secret's value only masked: import records none, and the next up
        // sets the declared one, in place. Everything else is as the program declares it.
        const up = await stack.up({ onOutput });
        expect(up.summary.resourceChanges).toEqual({ same: resources.length, update: 1 });
        expect(await emulator.writes()).toEqual([
          expect.objectContaining({ method: "PUT", path: "/api/v0/secrets/" }),
        ]);
        const again = await stack.up({ onOutput });
        expect(again.summary.resourceChanges).toEqual({ same: 1 + resources.length });
        // Nothing was created or destroyed: the same ids as before.
        expect(ids(await emulator.state())).toEqual(before);
        expect(await emulator.secrets()).toEqual({ BY_HAND: value });
        expectNoLeak([await exportState(false), ...output], [value, emulator.apiKey]);

        const destroy = await stack.destroy({ onOutput });
        expect(destroy.summary.resourceChanges).toEqual({ delete: 1 + resources.length });
        expect(ids(await emulator.state())).toEqual({
          secrets: [],
          volumes: [],
          instances: [],
          webhooks: [],
          sshKeys: [],
        });
      },
    );
  });
});
