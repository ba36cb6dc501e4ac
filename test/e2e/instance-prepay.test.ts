import { z } from "zod";
import { withStack } from "../support/pulumi-stack";
import { emulatorConfig, program } from "../support/programs";
import { useEmulator } from "../support/use-emulator";

// A reserved instance under the real Pulumi CLI: `prepayDollars` priced at its discount in the
// preview, the service's discounted price in `dollarsPerHour` after up, and a top-up in place.

const prepaidProgram = (dollars: number) =>
  program(`
const gpu = new gpucloud.Instance("gpu", {
  askId: 31001,
  image: "pytorch/pytorch:latest",
  diskGb: 20,
  prepayDollars: ${dollars},
  pollIntervalSeconds: 0.05,
});
exports.instanceId = gpu.instanceId;
exports.dollarsPerHour = gpu.dollarsPerHour;
exports.prepaidDollars = gpu.prepaidDollars;
`);

const shownSchema = z.object({
  instances: z.object({ dph_total: z.number(), credit_discount: z.number() }),
});

describe("a prepaid (reserved) Instance under the real Pulumi CLI", () => {
  const { emulator } = useEmulator({ per: "test", bootPolls: 1 });

  it("shows the discounted price at preview and after up, and prepays more in place", async () => {
    await emulator.control("PUT", "/_emulator/user", { credit: 1000 });
    await withStack(
      { program: prepaidProgram(150), config: emulatorConfig(emulator), teardown: "discard" },
      async ({ stack, setProgram, output }) => {
        const onOutput = (text: string) => output.push(text);
        const previewSaid: string[] = [];
        await stack.preview({ onOutput: (text) => previewSaid.push(text) });
        const line =
          /gpu: \$(\d+\.\d+)\/h to create: ask 31001 at \$[\d.]+\/h \+ 20 GB disk at \$0\.12\/GB-month, less [\d.]+% for \$150\.00 prepaid \([\d.]+ months, reserved\)/.exec(
            previewSaid.join(""),
          );
        expect(line).not.toBeNull();
        const previewed = Number(line?.[1]);

        const up = await stack.up({ onOutput });
        const id = up.outputs["instanceId"]?.value as number;
        const paid = up.outputs["dollarsPerHour"]?.value as number;
        const shown = shownSchema.parse(
          (await emulator.call("GET", `/api/v0/instances/${id}/`)).body,
        ).instances;
        // What the service reports: its listed price less the discount the deposit bought,
        // which is what the preview said.
        expect(shown.credit_discount).toBeGreaterThan(0);
        expect(paid).toBeCloseTo(shown.dph_total * (1 - shown.credit_discount), 6);
        expect(paid).toBeLessThan(shown.dph_total);
        expect(paid).toBeCloseTo(previewed, 4);
        expect(up.outputs["prepaidDollars"]?.value).toBe(150);

        // More prepaid: in place, the same instance, one deposit of the difference.
        await setProgram(prepaidProgram(300));
        const topUpSaid: string[] = [];
        await stack.preview({ onOutput: (text) => topUpSaid.push(text) });
        expect(topUpSaid.join("")).toContain(
          `gpu: prepays $150.00 more into instance ${id} in place ($300.00 in all)`,
        );
        await emulator.clearRequests();
        const topped = await stack.up({ onOutput });
        expect(topped.summary.resourceChanges).toMatchObject({ update: 1 });
        expect(topped.outputs["instanceId"]?.value).toBe(id);
        expect(topped.outputs["prepaidDollars"]?.value).toBe(300);
        expect(topped.outputs["dollarsPerHour"]?.value as number).toBeLessThan(paid);
        const writes = (await emulator.requests())
          // The offer search prices the plan; it changes nothing.
          .filter(
            (r) =>
              r.method !== "GET" && r.path.startsWith("/api/") && r.path !== "/api/v0/bundles/",
          )
          .map((r) => `${r.method} ${r.path}`);
        expect(writes).toEqual([`PUT /api/v0/instances/prepay/${id}/`]);
      },
    );
  }, 300_000);
});
