import { withStack } from "../support/pulumi-stack";

// The YAML language host that scripts/setup.sh builds from its Go module, run by the real CLI:
// a program with no resources but the stack, so no provider plugin is involved.
const program = `name: yaml-host-e2e
runtime: yaml
variables:
  greeting: hello from yaml
outputs:
  greeting: \${greeting}
  stack: \${pulumi.stack}
  project: \${pulumi.project}
`;

describe("the Pulumi YAML language host", () => {
  it("runs a YAML program through the Automation API: up, then destroy", async () => {
    await withStack(
      { language: "yaml", program: { text: program }, stackName: "yaml" },
      async ({ stack }) => {
        const up = await stack.up();
        expect(up.summary.result).toBe("succeeded");
        expect(up.summary.resourceChanges).toEqual({ create: 1 });
        expect(up.outputs["greeting"]?.value).toBe("hello from yaml");
        expect(up.outputs["stack"]?.value).toBe("yaml");
        expect(up.outputs["project"]?.value).toBe("yaml-host-e2e");

        const destroy = await stack.destroy();
        expect(destroy.summary.resourceChanges).toEqual({ delete: 1 });
      },
    );
  });
});
