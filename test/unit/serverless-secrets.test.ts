import * as pulumi from "@pulumi/pulumi";
import { Template } from "../../provider/resources/template";
import { WorkerGroup } from "../../provider/resources/worker-group";

// The inputs a resource registers are recorded in the state as they are sent: a credential
// among them must be sent as a secret, or the state's copy of the inputs holds it in plain
// text (additionalSecretOutputs covers the outputs only).

// The SDK's wire signature of a secret value (@pulumi/pulumi runtime/rpc).
const sigKey = "4dabf18193072939515e22adb298388d";
const secretSig = "1b47061264138c4ac30d75fd1eb44270";
const registered = new Map<string, Record<string, unknown>>();

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        registered.set(args.name, args.inputs as Record<string, unknown>);
        return { id: `${args.name}-id`, state: args.inputs as Record<string, unknown> };
      },
      call: () => ({}),
    },
    "project",
    "stack",
    true,
  );
});

const isSecretInput = (value: unknown): boolean =>
  typeof value === "object" &&
  value !== null &&
  (value as Record<string, unknown>)[sigKey] === secretSig;

async function inputsOf(resource: pulumi.CustomResource, name: string) {
  await new Promise((resolve) => resource.urn.apply(resolve));
  return registered.get(name) ?? {};
}

describe("credentials among a resource's inputs are registered as secrets", () => {
  it("WorkerGroup.launchArgs, given as plain text", async () => {
    const group = new WorkerGroup("group", {
      endpointId: 7001,
      templateId: 3,
      launchArgs: "--env HF_TOKEN=hf_plain_value",
    });
    const inputs = await inputsOf(group, "group");
    expect(isSecretInput(inputs["launchArgs"])).toBe(true);
  });

  it("Template.dockerLogin, given as plain text", async () => {
    const template = new Template("tpl", {
      name: "t",
      image: "vllm/vllm-openai",
      dockerLogin: { repo: "ghcr.io", user: "ci", password: "plain-password" },
    });
    const inputs = await inputsOf(template, "tpl");
    expect(isSecretInput(inputs["dockerLogin"])).toBe(true);
  });
});
