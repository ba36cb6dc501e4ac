import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";
import { z } from "zod";
import { eventually } from "../support/interrupt";
import { type TestStack, withStack } from "../support/pulumi-stack";
import {
  dynamicResources,
  emulatorConfig,
  type ExportedResource,
  outsideClient,
  program,
} from "../support/programs";
import { useEmulator } from "../support/use-emulator";

// Which instances are a stack's own. Many teams share one account, and stacks of the same
// project and stack names live in different backends; users keep instances on purpose
// (`retainOnDelete`, `pulumi state delete`). None of those may be adopted or destroyed by
// another stack's run, nor by this stack's cleanup of what interrupted runs leave.

const OWNER = "PULUMI_GPUCLOUD_OWNER";
const STACK = "PULUMI_GPUCLOUD_STACK";
const SPEC = "PULUMI_GPUCLOUD_SPEC";
const CREATE_TOKEN = "PULUMI_GPUCLOUD_CREATE_TOKEN";

const instance = (name: string, image = "img-a", options = "{}") => `
exports.${name} = new gpucloud.Instance("${name}", {
  askId: 31001,
  image: ${JSON.stringify(image)},
  diskGb: 20,
  label: "${name}",
  pollIntervalSeconds: 0.1,
}, ${options}).instanceId;
`;

const onOutput = (stack: TestStack) => (text: string) => stack.output.push(text);

const envSchema = z.record(z.string(), z.string());

describe("which instances are a stack's own (real Pulumi CLI)", () => {
  const { emulator } = useEmulator({ per: "test" });

  const instances = async () =>
    (await emulator.state()).instances.map((found) => ({
      id: found.id,
      label: found.label,
      image: found["image"],
      env: envSchema.parse(found["env"] ?? {}),
    }));
  const instanceIds = async () => (await instances()).map((found) => found.id);

  const resourceNamed = (state: string, type: string, name?: string): ExportedResource => {
    const found = dynamicResources(state).find(
      (resource) => resource.type.endsWith(`:${type}`) && (!name || resource.urn.endsWith(name)),
    );
    if (!found) throw new Error(`no ${type} ${name ?? ""} in the state`);
    return found;
  };
  const stackTokenOf = async (stack: TestStack) =>
    resourceNamed(await stack.exportState(false), "InstanceSweeper").outputs?.["stackToken"];

  /** Rents what an interrupted create of this stack leaves: its markers, its being-created label. */
  const rentLeftover = (owner: string, stackToken: string) =>
    outsideClient(emulator).instances.create(31001, {
      image: "img-a",
      disk: 20,
      label: `pulumi-gpucloud:creating:${stackToken}`,
      env: { [OWNER]: owner, [STACK]: stackToken, [CREATE_TOKEN]: randomUUID() },
    });

  it("two stacks of the same names in two backends, one account: neither adopts nor destroys the other's instance", async () => {
    const source = program(instance("trainer"));
    await withStack({ program: source, config: emulatorConfig(emulator) }, async (first) => {
      await withStack({ program: source, config: emulatorConfig(emulator) }, async (second) => {
        const firstUp = await first.stack.up({ onOutput: onOutput(first) });
        const firstId = firstUp.outputs["trainer"]?.value as number;
        const secondUp = await second.stack.up({ onOutput: onOutput(second) });
        const secondId = secondUp.outputs["trainer"]?.value as number;

        // Each rented its own: the second did not adopt the first's running instance.
        expect(secondId).not.toBe(firstId);
        expect(await instanceIds()).toEqual([firstId, secondId]);
        expect(second.output.join("")).not.toMatch(/adopting/);
        const [firstEnv, secondEnv] = (await instances()).map((found) => found.env);
        expect(firstEnv?.[OWNER]).toBe(secondEnv?.[OWNER]);
        expect(firstEnv?.[STACK]).toBe(await stackTokenOf(first));
        expect(secondEnv?.[STACK]).toBe(await stackTokenOf(second));
        expect(firstEnv?.[STACK]).not.toBe(secondEnv?.[STACK]);

        // (A replacement in one of two such stacks, `up --replace`, rents anew and touches
        // neither the other's instance nor its leftover: test/e2e/python-ownership.test.ts, the
        // same engine path and provider code through the plugin.)

        // Destroying the first stack leaves the second's instance running, as it was.
        await first.stack.destroy({ onOutput: onOutput(first) });
        expect(await instances()).toEqual([
          expect.objectContaining({ id: secondId, label: "trainer" }),
        ]);
        const refreshed = await second.stack.refresh({ onOutput: onOutput(second) });
        expect(refreshed.summary.resourceChanges).toEqual({ same: 3 });
      });
    });
    expect(await instanceIds()).toEqual([]);
  });

  it("retainOnDelete and pulumi state delete: a retained instance removed from the program, and a dropped one declared again, stay on the account through the stack's destroy; a leftover of the stack does not", async () => {
    const byHand: number[] = [];
    try {
      await withStack(
        {
          program: program(
            instance("kept", "img-a", "{ retainOnDelete: true }") +
              instance("dropped") +
              instance("managed"),
          ),
          config: emulatorConfig(emulator),
        },
        async (stack) => {
          const up = await stack.stack.up({ onOutput: onOutput(stack) });
          const kept = up.outputs["kept"]?.value as number;
          byHand.push(kept);
          const dropped = up.outputs["dropped"]?.value as number;
          byHand.push(dropped);
          // What an interrupted create of this stack would have left, beside them.
          const leftover = await rentLeftover(
            "gpucloud-e2e/test/gone",
            String(await stackTokenOf(stack)),
          );
          byHand.push(leftover);
          const urn = resourceNamed(await stack.exportState(false), "Instance", "dropped").urn;
          await promisify(execFile)(
            "pulumi",
            ["state", "delete", urn, "--yes", "--stack", "test"],
            {
              cwd: stack.workDir,
              env: { ...process.env, ...stack.cliEnv },
            },
          );

          // The retained one is no longer declared: the engine drops it (it never asks the
          // provider). The dropped one is still declared: the next up creates it again. It has
          // the same owner, spec and stack token, but it was handed over: a new one is rented.
          await stack.setProgram(program(instance("dropped") + instance("managed")));
          const again = await stack.stack.up({ onOutput: onOutput(stack) });
          expect(again.summary.resourceChanges).toEqual({ same: 3, create: 1, delete: 1 });
          expect(again.outputs["dropped"]?.value).not.toBe(dropped);
          expect(stack.output.join("")).not.toMatch(/adopting|destroying instance/);
          const byId = (ids: unknown[]) => [...ids].sort((a, b) => Number(a) - Number(b));
          expect(byId(await instanceIds())).toEqual(
            byId([
              kept,
              dropped,
              up.outputs["managed"]?.value,
              leftover,
              again.outputs["dropped"]?.value,
            ]),
          );

          // Destroy deletes what the state records, and the stack's sweeper with it, which
          // destroys the leftover only.
          const destroyed = await stack.stack.destroy({ onOutput: onOutput(stack) });
          expect(destroyed.summary.resourceChanges).toEqual({ delete: 4 });
          expect(
            (await instances()).sort((a, b) => a.id - b.id).map(({ id, label }) => ({ id, label })),
          ).toEqual(
            [
              { id: kept, label: "kept" },
              { id: dropped, label: "dropped" },
            ].sort((a, b) => a.id - b.id),
          );
        },
      );
    } finally {
      for (const id of byHand) await outsideClient(emulator).instances.destroy(id);
    }
  });

  it("a stack written before stack tokens: its next up gives it one, and its old instances are only ever touched through their own state", async () => {
    const outside = outsideClient(emulator);
    const byHand: number[] = [];
    try {
      await withStack(
        { program: program(instance("gpu")), config: emulatorConfig(emulator) },
        async (stack) => {
          await stack.stack.up({ onOutput: onOutput(stack) });
          const state = JSON.parse(await stack.exportState(false)) as {
            deployment: { resources: ExportedResource[] };
          };
          const [current] = await instances();
          // The instance as the release before tokens rented it: its owner, spec and create
          // token, the program's label; and a leftover of that release's interrupted create.
          const pre = (owner: string, label?: string) =>
            outside.instances.create(31001, {
              image: "img-a",
              disk: 20,
              ...(label === undefined ? {} : { label }),
              env: {
                [OWNER]: owner,
                [SPEC]: current?.env[SPEC] ?? "",
                [CREATE_TOKEN]: randomUUID(),
              },
            });
          const old = await pre("gpucloud-e2e/test/gpu", "gpu");
          const oldLeftover = await pre("gpucloud-e2e/test/gpu2");
          byHand.push(oldLeftover);
          // Each show advances the emulator's boot by one poll.
          await eventually(
            "the old instance running",
            async () => (await outside.instances.show(old))?.actual_status === "running",
          );
          // The state as that release wrote it: no token anywhere, the old instance recorded.
          for (const resource of state.deployment.resources) {
            delete resource.inputs?.["stackToken"];
            delete resource.outputs?.["stackToken"];
            if (resource.type.endsWith(":Instance") && resource.outputs) {
              resource["id"] = String(old);
              resource.outputs["instanceId"] = old;
              resource.outputs["attempts"] = [{ askId: 31001, instanceId: old }];
            }
          }
          await stack.stack.importStack(state as never);
          await outside.instances.destroy(current?.id ?? 0);
          await stack.stack.refresh({ onOutput: onOutput(stack) });

          // The next up: the sweeper gets a token in place, the old instance stays as it is,
          // and a new instance carries the token. The old leftover is neither adopted nor
          // destroyed: its owner alone does not prove it is this stack's.
          await stack.setProgram(program(instance("gpu") + instance("gpu2")));
          const up = await stack.stack.up({ onOutput: onOutput(stack) });
          expect(up.summary.resourceChanges).toEqual({ same: 2, update: 1, create: 1 });
          expect(up.outputs["gpu"]?.value).toBe(old);
          const token = await stackTokenOf(stack);
          expect(token).toEqual(expect.stringMatching(/^[\w-]{22}$/));
          const gpu2 = up.outputs["gpu2"]?.value as number;
          const tokens = (await instances()).map((found) => [found.id, found.env[STACK]]);
          // The old instance and the old leftover keep their markers; the new one has the token.
          expect(tokens).toEqual([
            [old, undefined],
            [oldLeftover, undefined],
            [gpu2, token],
          ]);
          expect(
            (await stack.stack.refresh({ onOutput: onOutput(stack) })).summary.resourceChanges,
          ).toEqual({
            same: 4,
          });

          // Destroy deletes what the state records, and only that.
          await stack.stack.destroy({ onOutput: onOutput(stack) });
          expect(await instanceIds()).toEqual([oldLeftover]);
        },
      );
    } finally {
      for (const id of byHand) await outside.instances.destroy(id);
    }
  });
});
