import { LocalWorkspace } from "@pulumi/pulumi/automation";
import { withStack } from "../support/pulumi-stack";

// One trivial dynamic resource: the engine's full loop with no service behind it.
const program = `
const pulumi = require("@pulumi/pulumi");
const provider = {
  async create(inputs) { return { id: "note-1", outs: inputs }; },
};
const note = new pulumi.dynamic.Resource(provider, "note", { text: "hello" });
exports.text = note.text;
`;

function log(line: string): void {
  process.stdout.write(`[smoke] ${line}\n`);
}

describe("the real Pulumi CLI, offline", () => {
  it("goes up, refreshes, stays unchanged and is destroyed", async () => {
    const workspace = await LocalWorkspace.create({});
    log(`pulumi CLI ${workspace.pulumiVersion}`);
    expect(workspace.pulumiVersion).toMatch(/^3\.\d+\.\d+/);

    await withStack({ program }, async ({ stack }) => {
      const up = await stack.up();
      log(`up: ${JSON.stringify(up.summary.resourceChanges)}`);
      expect(up.summary.result).toBe("succeeded");
      expect(up.summary.resourceChanges).toEqual({ create: 2 });
      expect(up.outputs["text"]?.value).toBe("hello");

      const refresh = await stack.refresh();
      log(`refresh: ${JSON.stringify(refresh.summary.resourceChanges)}`);
      expect(refresh.summary.result).toBe("succeeded");
      expect(refresh.summary.resourceChanges).toEqual({ same: 2 });

      const again = await stack.up();
      log(`up again: ${JSON.stringify(again.summary.resourceChanges)}`);
      expect(again.summary.resourceChanges).toEqual({ same: 2 });

      const destroy = await stack.destroy();
      log(`destroy: ${JSON.stringify(destroy.summary.resourceChanges)}`);
      expect(destroy.summary.resourceChanges).toEqual({ delete: 2 });
      const exported = await stack.exportStack();
      const deployment = exported.deployment as { resources?: unknown[] };
      expect(deployment.resources ?? []).toHaveLength(0);
    });
  });
});
