import path from "node:path";
import { withStack } from "../support/pulumi-stack";
import { emulatorConfig } from "../support/programs";
import {
  billedNow,
  costOf,
  existingVolume,
  matrixSteps,
  misses,
  nameOf,
  piped,
  previewJson,
  typescriptMatrix,
} from "../support/price-matrix";
import { useEmulator } from "../support/use-emulator";
import { repoRoot } from "../support/repo-root";

const costCommand = path.join(repoRoot, "dist/bin/gpucloud-cost.js");
const total = (billed: ReadonlyMap<string, number>) =>
  [...billed.values()].reduce((sum, price) => sum + price, 0);

// The price matrix through the dynamic classes (test/support/price-matrix.ts says what it
// holds): at every step, each figure of the preview, as gpucloud-cost reads it, is within 1% of
// what the service bills for the resource once `up` has applied the step.

describe("the price matrix: each preview figure is what up rents (TypeScript, real CLI)", () => {
  const { emulator } = useEmulator({ per: "file", bootPolls: 1, market: { seed: 1 } });

  it("creates, changes in place, replaces, grows and shrinks at the prices the preview shows", async () => {
    const volumeId = await existingVolume(emulator);
    const [first, ...changes] = matrixSteps;
    if (first === undefined) throw new Error("no steps");
    await withStack(
      {
        program: typescriptMatrix(first, volumeId),
        config: emulatorConfig(emulator),
        teardown: "discard",
      },
      async (test) => {
        const seen: string[] = [];
        let before = new Map<string, number>();
        for (const [index, step] of [first, ...changes].entries()) {
          await test.setProgram(typescriptMatrix(step, volumeId));
          const preview = await previewJson(test);
          expect(preview.failed).toBe(false);
          const figures = await costOf(preview.text, "npm");
          const up = await test.stack.up();
          const billed = await billedNow(emulator, up.outputs);
          const off = misses(figures, billed).filter((one) => !(one.miss <= 0.01));
          expect({ step: index + 1, off }).toEqual({ step: index + 1, off: [] });
          // Every billable resource is priced, once.
          expect(figures.resources.map(nameOf).sort()).toEqual([...billed.keys()].sort());
          seen.push(...figures.resources.map((one) => `${one.op} ${nameOf(one)}`));
          // The change CI posts is the bill's change: a shrink saves the node that goes.
          const billedChange = total(billed) - total(before);
          expect(Math.abs(figures.change - billedChange)).toBeLessThan(0.01 * total(billed));
          if (index === 2) {
            const group = figures.resources.find((one) => nameOf(one) === "group");
            const saving = (group?.dollarsPerHourNow ?? 0) - (group?.dollarsPerHourAfter ?? 0);
            const billedSaving = (before.get("group") ?? NaN) - (billed.get("group") ?? NaN);
            expect(saving).toBeGreaterThan(0);
            expect(Math.abs(saving - billedSaving)).toBeLessThan(0.01 * billedSaving);
            // The line CI posts on the pull request says the same.
            const markdown = await piped(
              process.execPath,
              [costCommand, "--markdown"],
              preview.text,
            );
            const posted = /^this change: (-?)\$(\d+\.\d+)\/h/.exec(markdown);
            expect(Number(`${posted?.[1] ?? ""}${posted?.[2] ?? "NaN"}`)).toBeCloseTo(
              figures.change,
              2,
            );
          }
          before = billed;
        }
        // What the steps were, as the preview named them.
        expect(seen).toEqual(
          expect.arrayContaining([
            "create onData",
            "create data",
            "replace byQuery",
            "update bid",
            "update stopped",
            "replace onData",
            "update group",
            "replace byAsk",
            "replace group",
          ]),
        );
      },
    );
  }, 600_000);
});
