import { withStack } from "../support/pulumi-stack";
import { emulatorConfig, outsideClient, program } from "../support/programs";
import { useEmulator } from "../support/use-emulator";

const volumeProgram = (args: { askId: number; sizeGb?: number }) =>
  program(`
const data = new gpucloud.Volume("data", ${JSON.stringify(args)});
exports.volumeName = data.volumeName;
exports.sizeGb = data.sizeGb;
`);

describe("Volume under the real Pulumi CLI", () => {
  const { emulator } = useEmulator({ per: "test" });

  it("creates from an ask, refreshes unchanged, replaces on change, and destroys", async () => {
    await withStack(
      { program: volumeProgram({ askId: 21001 }), config: emulatorConfig(emulator) },
      async ({ stack, setProgram, output }) => {
        const onOutput = (text: string) => output.push(text);
        const up = await stack.up({ onOutput });
        expect(up.summary.resourceChanges).toEqual({ create: 2 });
        const [volume] = (await emulator.state()).volumes;
        expect(volume).toMatchObject({ askId: 21001, sizeGb: 15 });
        expect(up.outputs["volumeName"]?.value).toBe(`V.${volume?.id ?? -1}`);
        expect(up.outputs["sizeGb"]?.value).toBe(15);

        expect((await stack.refresh({ onOutput })).summary.resourceChanges).toEqual({ same: 2 });
        expect((await stack.up({ onOutput })).summary.resourceChanges).toEqual({ same: 2 });

        // A new size replaces: the service cannot resize a volume.
        await setProgram(volumeProgram({ askId: 21001, sizeGb: 40 }));
        const replace = await stack.up({ onOutput });
        expect(replace.summary.resourceChanges).toEqual({ same: 1, replace: 1 });
        const volumes = (await emulator.state()).volumes;
        expect(volumes).toEqual([expect.objectContaining({ sizeGb: 40 })]);
        expect(volumes[0]?.id).not.toBe(volume?.id);

        // Deleted outside Pulumi: refresh drops it, up creates it again.
        await outsideClient(emulator).volumes.delete(volumes[0]?.id ?? 0);
        const gone = await stack.refresh({ onOutput });
        expect(gone.summary.resourceChanges).toEqual({ same: 1, delete: 1 });
        const recreate = await stack.up({ onOutput });
        expect(recreate.summary.resourceChanges).toEqual({ same: 1, create: 1 });
        expect((await emulator.state()).volumes).toHaveLength(1);

        await stack.destroy({ onOutput });
        expect((await emulator.state()).volumes).toEqual([]);
      },
    );
  });
});
