import { randomUUID } from "node:crypto";
import { z } from "zod";
import { descendantsOf, eventually, isAlive, releaseLock, startCli } from "../support/interrupt";
import { withStack, type TestStack } from "../support/pulumi-stack";
import { useEmulator } from "../support/use-emulator";
import { emulatorConfig, outsideClient, stateResources } from "../support/programs";

// The ownership rules through the plugin: two Python stacks of the same project and stack names
// (in two backends, as two teams' CI would have them) share one account. Neither adopts,
// replaces or destroys the other's instance, nor what an interrupted run of the other left; each
// one's destroy removes its own leftovers (the stack's sweeper, which the SDK declares). And a
// `pulumi up` killed with its plugin while an Instance and a NodeGroup boot leaves nothing
// billing after `pulumi destroy`.

const OWNER = "PULUMI_GPUCLOUD_OWNER";
const STACK = "PULUMI_GPUCLOUD_STACK";
const CREATE_TOKEN = "PULUMI_GPUCLOUD_CREATE_TOKEN";

const main = `import pulumi
import pulumi_gpucloud as gpucloud

trainer = gpucloud.Instance(
    "trainer", ask_id=31001, image="img-a", disk_gb=20, label="trainer", poll_interval_seconds=0.1
)
pulumi.export("trainer", trainer.instance_id)
`;

const envSchema = z.record(z.string(), z.string());

describe("two Python stacks of the same names on one account (real Pulumi CLI)", () => {
  const { emulator } = useEmulator({ per: "file", bootPolls: 0 });

  const instances = async () =>
    (await emulator.state()).instances.map((found) => ({
      id: found.id,
      label: found.label,
      env: envSchema.parse(found["env"] ?? {}),
    }));
  const instanceIds = async () => (await instances()).map((found) => found.id);
  /** The stack's identity, which the plugin keeps in its default provider's state. */
  const stackTokenOf = async ({ exportState }: TestStack) => {
    const provider = stateResources(await exportState(false)).find((resource) =>
      resource.type.startsWith("pulumi:providers:gpucloud"),
    );
    return z.string().parse(provider?.inputs?.["stackToken"]);
  };
  const options = {
    language: "python",
    program: { main, project: "py-owners" },
    stackName: "test",
  } as const;

  it("never adopt, replace or destroy each other's instances or leftovers; a refresh names its own, writing nothing", async () => {
    const config = emulatorConfig(emulator);
    await withStack({ ...options, config }, async (first) => {
      await withStack({ ...options, config }, async (second) => {
        const output: string[] = [];
        const onOutput = (text: string) => output.push(text);
        const firstUp = await first.stack.up({ onOutput });
        const firstId = firstUp.outputs["trainer"]?.value as number;
        const secondUp = await second.stack.up({ onOutput });
        const secondId = secondUp.outputs["trainer"]?.value as number;

        // Each rented its own: the second did not adopt the first's running instance.
        expect(secondId).not.toBe(firstId);
        expect(await instanceIds()).toEqual([firstId, secondId]);
        expect(output.join("")).not.toMatch(/adopting/);
        const [firstEnv, secondEnv] = (await instances()).map((found) => found.env);
        // Same project, stack and resource names: the owner marker alone cannot tell them apart.
        expect(firstEnv?.[OWNER]).toEqual(expect.any(String));
        expect(firstEnv?.[OWNER]).toBe(secondEnv?.[OWNER]);
        const firstToken = await stackTokenOf(first);
        const secondToken = await stackTokenOf(second);
        expect(firstEnv?.[STACK]).toBe(firstToken);
        expect(secondEnv?.[STACK]).toBe(secondToken);
        expect(firstToken).not.toBe(secondToken);

        // What an interrupted create of the second stack would leave: its markers and its
        // being-created label, the same spec as the first's instance.
        const leftover = await outsideClient(emulator).instances.create(31001, {
          image: "img-a",
          disk: 20,
          label: `pulumi-gpucloud:creating:${secondToken}`,
          env: {
            [OWNER]: firstEnv?.[OWNER] ?? "",
            [STACK]: secondToken,
            [CREATE_TOKEN]: randomUUID(),
          },
        });

        // A replacement in the first stack rents anew: it neither adopts the second's leftover
        // nor touches the second's instance.
        const urn = stateResources(await first.exportState(false)).find(
          (resource) => resource.type === "gpucloud:index:Instance",
        )?.urn;
        const replaced = await first.stack.up({ onOutput, replace: [urn ?? ""] });
        expect(replaced.summary.resourceChanges).toMatchObject({ replace: 1 });
        const replacement = replaced.outputs["trainer"]?.value as number;
        expect([firstId, secondId, leftover]).not.toContain(replacement);
        expect(await instanceIds()).toEqual([secondId, leftover, replacement]);

        // Destroying the first stack leaves the second's instance and leftover as they were.
        await first.stack.destroy({ onOutput });
        expect(await instances()).toEqual([
          expect.objectContaining({ id: secondId, label: "trainer" }),
          expect.objectContaining({
            id: leftover,
            label: `pulumi-gpucloud:creating:${secondToken}`,
          }),
        ]);
        // The second's refresh names its leftover (the stack, its sweeper, its instance), and
        // writes nothing...
        await emulator.clearRequests();
        const refreshed = await second.stack.refresh({ onOutput });
        expect(refreshed.summary.resourceChanges).toEqual({ same: 3 });
        expect(refreshed.stdout).toContain(
          `instance ${leftover} (py-owners/test/trainer) was left by an interrupted create`,
        );
        expect(await emulator.writes()).toEqual([]);
        expect(await instanceIds()).toEqual([secondId, leftover]);

        // ... and its destroy removes it with its instance.
        await second.stack.destroy({ onOutput });
        expect(await instanceIds()).toEqual([]);
      });
    });
    expect(await instanceIds()).toEqual([]);
  });
});

describe("a Python up killed with its plugin while an Instance and a NodeGroup boot (real Pulumi CLI)", () => {
  // The generated market holds the H100 SXM clusters a group needs.
  const { emulator } = useEmulator({ per: "file", bootPolls: 0, market: { seed: 1 } });

  const killedMain = `import pulumi
import pulumi_gpucloud as gpucloud

trainer = gpucloud.Instance(
    "trainer", ask_id=31001, image="img-a", disk_gb=20, poll_interval_seconds=0.2
)
trainers = gpucloud.NodeGroup(
    "trainers",
    node_count=2,
    offer_query={"gpuName": "H100 SXM"},
    image="pytorch/pytorch",
    disk_gb=40,
    network_volume={"size_gb": 50, "mount_path": "/data"},
    poll_interval_seconds=0.2,
)
`;

  /** What bills or holds data on the account now. */
  const account = async () => {
    const client = outsideClient(emulator);
    return {
      instances: (await emulator.state()).instances.map((instance) => instance.id),
      overlays: (await client.overlays.list()).map((overlay) => overlay.name),
      networkVolumes: (await client.volumes.list())
        .filter((volume) => volume.cluster_id !== null && volume.cluster_id !== undefined)
        .map((volume) => volume.id),
    };
  };

  it("a refreshing preview names the leftovers and writes nothing; destroy exits 0 leaving nothing", async () => {
    await withStack(
      {
        language: "python",
        program: { main: killedMain, project: "py-killed" },
        stackName: "test",
        config: emulatorConfig(emulator),
      },
      async (stack) => {
        // The Instance and the group's two ranks (rented at once) boot for ten minutes: only the
        // kill ends them.
        const longBoot = { status: "running", afterSeconds: 600 } as const;
        await emulator.queueBoots([longBoot, longBoot, longBoot]);
        const cli = startCli(stack, ["up", "--yes", "--skip-preview"]);
        await eventually("the instance and both ranks rented", async () => {
          const now = await account();
          return now.instances.length === 3 && now.networkVolumes.length === 1;
        });
        // A cancelled CI job whose runner kills every process of the job, the plugin included.
        const tree = descendantsOf(cli.pid);
        process.kill(-cli.pid, "SIGKILL");
        for (const pid of tree) if (isAlive(pid)) process.kill(pid, "SIGKILL");
        await cli.exited;
        await releaseLock(stack);
        const left = await account();
        expect(left.overlays).toHaveLength(1);

        // The engine calls the plugin for no pending create: the sweeper's refresh names what
        // the killed run left, and a preview's refresh writes nothing. A `pulumi refresh` is the
        // same call to the plugin (it cannot tell one from the other): the first describe's
        // refresh shows it naming a leftover and writing nothing.
        await emulator.clearRequests();
        const previewed = await stack.stack.preview({ refresh: true });
        for (const id of left.instances) {
          expect(previewed.stdout).toMatch(
            new RegExp(`instance ${id} \\(py-killed/test/trainers?[/\\w-]*\\) was left by`),
          );
        }
        expect(await emulator.writes()).toEqual([]);
        expect(await account()).toEqual(left);

        // The natural cleanup step: nothing is left billing, and nothing holding data.
        const destroyed = await stack.stack.destroy();
        expect(destroyed.summary.result).toBe("succeeded");
        expect(await account()).toEqual({ instances: [], overlays: [], networkVolumes: [] });
      },
    );
  }, 240_000);
});
