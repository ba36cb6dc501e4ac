import { withStack } from "../support/pulumi-stack";
import { emulatorConfig } from "../support/programs";
import {
  billedNow,
  costOf,
  existingVolume,
  matrixSteps,
  misses,
  nameOf,
  previewJson,
  yamlMatrix,
} from "../support/price-matrix";
import { useEmulator } from "../support/use-emulator";

// The price matrix through the native plugin, in YAML (test/support/price-matrix.ts says what
// it holds; the TypeScript file runs the same layouts through the dynamic classes): at every
// step, each figure of the preview, as the plugin's `cost` reads it, is within 1% of what the
// service bills for the resource once `up` has applied the step; each line is on its
// resource's own row.

describe("the price matrix: each preview figure is what up rents (the plugin, YAML, real CLI)", () => {
  const { emulator } = useEmulator({ per: "file", bootPolls: 1, market: { seed: 1 } });

  it("creates, changes in place, replaces, grows and shrinks at the prices the preview shows", async () => {
    const volumeId = await existingVolume(emulator);
    const [first] = matrixSteps;
    if (first === undefined) throw new Error("no steps");
    await withStack(
      {
        language: "yaml",
        program: { text: yamlMatrix(first, volumeId) },
        config: emulatorConfig(emulator),
        teardown: "discard",
      },
      async (test) => {
        for (const [index, step] of matrixSteps.entries()) {
          await test.setProgram(yamlMatrix(step, volumeId));
          const preview = await previewJson(test);
          expect(preview.failed).toBe(false);
          const figures = await costOf(preview.text, "plugin");
          // On its own row: the line's resource is its URN.
          for (const one of figures.resources) {
            expect(one.resource).toMatch(/^urn:pulumi:test::price-matrix-yaml::gpucloud:index:/);
          }
          const up = await test.stack.up();
          const billed = await billedNow(emulator, up.outputs);
          const off = misses(figures, billed).filter((one) => !(one.miss <= 0.01));
          expect({ step: index + 1, off }).toEqual({ step: index + 1, off: [] });
          expect(figures.resources.map(nameOf).sort()).toEqual([...billed.keys()].sort());
        }
      },
    );
  }, 600_000);
});
