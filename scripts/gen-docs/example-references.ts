/** References in examples: to an output of a resource the example declared before. */
import {
  type ExampleReference,
  exampleReferenceSchema,
  type ExampleValue,
} from "../../provider/shared/reference-examples";
import type { Sample } from "./samples";
import type { PackageSpec, TypeSpec } from "./schema";

/** The resources an example has declared so far: variable → resource type (`Endpoint`). */
export type Scope = ReadonlyMap<string, string>;

/** Where a value is, for errors (`WorkerGroup.offerQuery`), and what it may refer to. */
export interface Place {
  where: string;
  scope: Scope;
}

export const isReference = (value: ExampleValue): value is ExampleReference =>
  exampleReferenceSchema.safeParse(value).success;

/** A reference to an output of a resource declared before, checked against the schema. */
export function referenceSample(
  spec: PackageSpec,
  type: TypeSpec,
  { ref }: ExampleReference,
  { where, scope }: Place,
): Sample {
  const resourceType = scope.get(ref.resource);
  const outputs =
    resourceType === undefined
      ? undefined
      : spec.resources[`${spec.name}:index:${resourceType}`]?.properties;
  if (resourceType === undefined || outputs === undefined) {
    throw new Error(`${where}: no resource ${ref.resource} is declared before it`);
  }
  const outputType = outputs[ref.output];
  if (outputType === undefined) {
    throw new Error(`${where}: ${resourceType} has no output ${ref.output}`);
  }
  return { type, kind: "reference", resourceType, outputType, ...ref };
}

/** The resources the samples refer to, by variable. */
export function referredTo(samples: readonly Sample[]): Set<string> {
  const inner = (sample: Sample): Sample[] => {
    switch (sample.kind) {
      case "list":
        return sample.items;
      case "map":
      case "object":
        return (sample.kind === "map" ? sample.entries : sample.fields).map(([, value]) => value);
      default:
        return [];
    }
  };
  const resources = samples.flatMap((sample) =>
    sample.kind === "reference" ? [sample.resource] : [...referredTo(inner(sample))],
  );
  return new Set(resources);
}
