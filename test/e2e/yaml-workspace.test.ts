import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import * as pulumi from "@pulumi/pulumi";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { z } from "zod";
import * as gpucloud from "../../provider";
import { repoRoot } from "../support/repo-root";
import { useEmulator } from "../support/use-emulator";
import { emulatorConfig, expectNoLeak, stateResources } from "../support/programs";
import { withStack } from "../support/pulumi-stack";
import { nativePluginDir } from "../support/yaml-stack";

const execFileAsync = promisify(execFile);

// examples/yaml-workspace as a user runs it, with the native plugin pulumi-resource-gpucloud
// that the package's `bin` puts in node_modules/.bin, the real CLI and the YAML language host.
const exampleDir = path.join(repoRoot, "examples", "yaml-workspace");
const examplePath = "path: ../../node_modules/.bin";
// How the state marks a secret (its plaintext encrypted in `ciphertext`).
const secretSignature = "4dabf18193072939515e22adb298388d";
const secretSignatureValue = "1b47061264138c4ac30d75fd1eb44270";

describe("examples/yaml-workspace with the native plugin and the real Pulumi CLI", () => {
  // Instances run at the first status read.
  const { emulator } = useEmulator({ per: "file", bootPolls: 0 });

  it("deploys, refreshes and updates with no changes, and destroys, leaking no secret", async () => {
    const example = readFileSync(path.join(exampleDir, "Pulumi.yaml"), "utf8");
    // The copy runs from a temporary directory: the plugin's folder becomes absolute.
    expect(example).toContain(examplePath);
    const text = example.replace(examplePath, `path: ${nativePluginDir}`);
    const hfToken = "hf_yaml-e2e.Token-123";
    const config = {
      ...emulatorConfig(emulator),
      "yaml-workspace:hfToken": { value: hfToken, secret: true },
      "yaml-workspace:pollIntervalSeconds": { value: "1" },
    };
    await withStack(
      { language: "yaml", program: { text }, config, stackName: "yaml" },
      async ({ stack, exportState }) => {
        const output: string[] = [];
        const events: EngineEvent[] = [];
        const onOutput = (line: string) => output.push(line);

        const up = await stack.up({ onOutput, onEvent: (event) => events.push(event) });
        expect(up.summary.resourceChanges).toEqual({ create: 5 });
        const state = await emulator.state();
        expect(await emulator.secrets()).toEqual({ HF_TOKEN: hfToken });
        expect(state.volumes).toHaveLength(1);
        expect(state.instances).toEqual([expect.objectContaining({ label: "yaml-workspace" })]);
        // The instance mounts the volume the example adds (placed on its machine: forInstance).
        expect(state.instances[0]?.["volume"]).toEqual({
          volumeId: state.volumes[0]?.id,
          mountPath: "/workspace/data",
        });
        const instance = state.instances[0];
        expect(up.outputs["secretKey"]?.value).toBe("HF_TOKEN");
        expect(up.outputs["instanceId"]?.value).toBe(instance?.id);
        expect(up.outputs["volumeName"]?.value).toBe(`V.${String(state.volumes[0]?.id)}`);
        expect(up.outputs["sshHost"]?.value).toEqual(expect.any(String));

        // Progress lines go to the instance's own row: ephemeral, with its URN.
        const instanceStatus = events
          .map((event) => event.diagnosticEvent)
          .filter((event) => event?.urn?.endsWith("::gpucloud:index:Instance::trainer"))
          .map(
            (event) => `${event?.ephemeral === true ? "status" : "log"}: ${event?.message ?? ""}`,
          );
        expect(instanceStatus).toContainEqual(expect.stringMatching(/^status: .*renting ask/));
        expect(instanceStatus).toContainEqual(expect.stringMatching(/^status: .*is running/));

        // Nothing drifted and nothing changed: no write reaches the service.
        await emulator.clearRequests();
        const refresh = await stack.refresh({ onOutput });
        expect(refresh.summary.resourceChanges).toEqual({ same: 5 });
        const again = await stack.up({ onOutput });
        expect(again.summary.resourceChanges).toEqual({ same: 5 });
        expect(await emulator.writes()).toEqual([]);

        // Our types, a real provider; the token and the key are in state only as secrets.
        const exported = await exportState(false);
        const resources = stateResources(exported);
        const secret = resources.find((resource) => resource.type === "gpucloud:index:Secret");
        const encrypted = z.object({
          [secretSignature]: z.literal(secretSignatureValue),
          ciphertext: z.string(),
        });
        expect(
          [secret?.inputs?.["value"], secret?.outputs?.["value"]].map(
            (value) => encrypted.safeParse(value).success,
          ),
        ).toEqual([true, true]);
        const types = resources.map((resource) => resource.type);
        expect(types.sort()).toEqual([
          "gpucloud:index:Instance",
          "gpucloud:index:InstanceSweeper",
          "gpucloud:index:Secret",
          "gpucloud:index:Volume",
          "pulumi:providers:gpucloud",
          "pulumi:pulumi:Stack",
        ]);

        const destroy = await stack.destroy({ onOutput });
        expect(destroy.summary.resourceChanges).toEqual({ delete: 5 });
        const after = await emulator.state();
        expect({
          secrets: after.secrets,
          volumes: after.volumes,
          instances: after.instances,
        }).toEqual({ secrets: [], volumes: [], instances: [] });

        expectNoLeak([exported, ...output], [hfToken, emulator.apiKey]);
      },
    );
  });

  it("prints a schema naming every resource and function: pulumi package get-schema", async () => {
    const plugin = path.join(nativePluginDir, "pulumi-resource-gpucloud");
    const { stdout } = await execFileAsync("pulumi", ["package", "get-schema", plugin], {
      env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" },
      maxBuffer: 16 * 1024 * 1024,
    });
    const schema = z
      .object({
        name: z.string(),
        resources: z.record(z.string(), z.unknown()),
        functions: z.record(z.string(), z.unknown()),
      })
      .parse(JSON.parse(stdout));
    expect(schema.name).toBe("gpucloud");
    // Every resource class the TypeScript package exports, by the same name, and the stack's
    // sweeper, which YAML programs declare by hand.
    const classes = Object.entries(gpucloud)
      .filter(
        ([, value]) =>
          typeof value === "function" &&
          (value as { prototype?: unknown }).prototype instanceof pulumi.CustomResource,
      )
      .map(([name]) => `gpucloud:index:${name}`);
    expect(classes).toEqual(expect.arrayContaining(["gpucloud:index:Instance"]));
    expect(Object.keys(schema.resources).sort()).toEqual(
      [...classes, "gpucloud:index:InstanceSweeper"].sort(),
    );
    expect(Object.keys(schema.functions)).toEqual(
      expect.arrayContaining(
        ["getOffers", "getVolumeOffers", "getCurrentUser", "cancelRsyncCopy"].map(
          (name) => `gpucloud:index:${name}`,
        ),
      ),
    );
  });
});
