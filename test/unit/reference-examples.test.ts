import { nativeFunctions } from "../../provider/native/functions";
import { nativeResources } from "../../provider/native/resources";
import { packageSchema } from "../../provider/native/schema";
import { type Example, exampleOf } from "../../provider/shared/reference-examples";
import { referencePages } from "../../scripts/gen-docs/pages";

// The reference pages' examples (provider/shared/reference-examples.ts): every resource and every
// function that takes arguments has one, and the generator refuses one that names what the
// schema does not have, rather than print it. reference-examples.test.ts (e2e) runs them.

/** The package schema with the example of `token` (a resource's or function's) replaced. */
function withExampleOf(token: string, example: Example): unknown {
  const schema = JSON.parse(JSON.stringify(packageSchema("0.1.0"))) as {
    resources: Record<string, { language?: unknown }>;
    functions: Record<string, { language?: unknown }>;
  };
  const owner = schema.resources[token] ?? schema.functions[token];
  if (owner === undefined) throw new Error(`no ${token} in the schema`);
  owner.language = { docs: { example } };
  return schema;
}

const endpoint = { type: "Endpoint", name: "endpoint", inputs: { endpointName: "llm" } };
const endpointId = { ref: { resource: "endpoint", output: "endpointId" } };

describe("the reference pages' examples", () => {
  it("cover every resource, and every function that takes arguments", () => {
    const without = [
      ...nativeResources.filter((resource) => exampleOf(resource.inputs) === undefined),
      ...nativeFunctions.filter(
        (fn) => Object.keys(fn.inputs.shape).length > 0 && exampleOf(fn.inputs) === undefined,
      ),
    ].map((owner) => ("type" in owner ? owner.type : owner.name));
    expect(without).toEqual([]);
  });

  it("reach the package schema as each one's language.docs.example", () => {
    const schema = packageSchema("0.1.0");
    const workerGroup = nativeResources.find((resource) => resource.type === "WorkerGroup");
    expect(workerGroup).toBeDefined();
    expect(schema.resources["gpucloud:index:WorkerGroup"]?.language?.docs.example).toEqual(
      workerGroup && exampleOf(workerGroup.inputs),
    );
    expect(schema.functions["gpucloud:index:getCurrentUser"]?.language).toBeUndefined();
  });

  it.each<[string, string, Example, RegExp]>([
    [
      "an input the resource does not have",
      "gpucloud:index:Endpoint",
      { inputs: { endpointName: "llm", gpuName: "RTX 4090" } },
      /Endpoint's example gives gpuName, not one of its inputs/,
    ],
    [
      "a required input left out",
      "gpucloud:index:WorkerGroup",
      { inputs: {} },
      /WorkerGroup's example leaves out endpointId/,
    ],
    [
      "a value not of the input's type",
      "gpucloud:index:Endpoint",
      { inputs: { endpointName: 7 } },
      /Endpoint\.endpointName: 7 is not of its type/,
    ],
    [
      "a field a nested type does not have",
      "gpucloud:index:Instance",
      { inputs: { volume: { volumeId: 1, mountPath: "/data", size: 1 } } },
      /Instance\.volume: InstanceVolume has no size/,
    ],
    [
      "a reference to a resource it does not declare",
      "gpucloud:index:WorkerGroup",
      { inputs: { endpointId } },
      /WorkerGroup\.endpointId: no resource endpoint is declared before it/,
    ],
    [
      "a reference to an output its type does not have",
      "gpucloud:index:WorkerGroup",
      {
        needs: [endpoint],
        inputs: { endpointId: { ref: { resource: "endpoint", output: "id" } } },
      },
      /WorkerGroup\.endpointId: Endpoint has no output id/,
    ],
    [
      "a resource it declares for nothing",
      "gpucloud:index:Endpoint",
      { needs: [endpoint], inputs: { endpointName: "llm" } },
      /an example declares endpoint and never refers to it/,
    ],
  ])("are refused with %s", (_what, token, example, message) => {
    expect(() => referencePages(withExampleOf(token, example))).toThrow(message);
  });

  it("render a reference in each language as that language refers to an output", () => {
    const pages = referencePages(
      withExampleOf("gpucloud:index:WorkerGroup", {
        needs: [endpoint],
        inputs: { endpointId, templateId: 1 },
      }),
    );
    const page = pages.get("WorkerGroup.md") ?? "";
    expect(page).toContain("  endpointId: endpoint.endpointId,\n");
    expect(page).toContain("    endpoint_id=endpoint.endpoint_id,\n");
    expect(page).toContain("\t\t\tEndpointId: endpoint.EndpointId,\n");
    expect(page).toContain("      endpointId: ${endpoint.endpointId}\n");
  });
});
