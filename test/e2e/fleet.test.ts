import { withStack } from "../support/pulumi-stack";
import { emulatorConfig, program } from "../support/programs";
import {
  fleetEmulatorOptions,
  fleetParallel,
  fleetProgram,
  fleetRequests,
  fleetSize,
} from "../support/fleet";
import { useEmulator } from "../support/use-emulator";

// A fleet as users rent one: forty single-GPU workers by one query, applied with a parallelism
// above the fleet's size, against an emulator that limits every endpoint as the service
// documents and boots instances in wall-clock time. Timings are the benchmark's (`npm run
// bench`); this checks what must hold.
describe("a fleet of 40 workers under the documented rate limits (real Pulumi CLI)", () => {
  const { emulator } = useEmulator({ per: "test", ...fleetEmulatorOptions });

  it("rents every worker once, reads their status at most half a request each, and destroys them all", async () => {
    await withStack(
      { program: program(fleetProgram(fleetSize)), config: emulatorConfig(emulator) },
      async (stack) => {
        const onOutput = (text: string) => stack.output.push(text);
        const up = await stack.stack.up({ onOutput, parallel: fleetParallel });

        const ids = up.outputs["workers"]?.value as number[];
        expect(new Set(ids).size).toBe(fleetSize);
        const state = await emulator.state();
        expect(state.instances.map((instance) => instance.id).sort()).toEqual([...ids].sort());
        expect(up.outputs["statuses"]?.value).toEqual(ids.map(() => "running"));

        const requests = fleetRequests(await emulator.requests());
        // Rented once each: a create refused with 429 is retried, never one that may have landed.
        expect(requests.rents.answered).toBe(fleetSize);
        expect(requests.statusReads.answered / fleetSize).toBeLessThanOrEqual(0.5);

        await stack.stack.destroy({ onOutput, parallel: fleetParallel });
        expect((await emulator.state()).instances).toEqual([]);
      },
    );
  });
});
