import { createHash, randomBytes } from "node:crypto";
import { environmentOf, type InstanceListQuery, type Instance as InstanceWire } from "../client";
import { runtypeOf, type InstanceInputs } from "./instance-inputs";
import { idleRuleOf, lifetimeOf } from "./lifetime";
import type { ResourceContext } from "../shared/resource-descriptor";

// What makes an instance this stack's own, and what tells an interrupted create's leftover
// apart from an instance that was handed over to the engine (docs/maintainers/ownership.md has the whole
// reasoning and every interrupted-run window).

/**
 * `<project>/<stack>/<resource name>`: which resource rented the instance, for people and for
 * adoption within a stack. Project and stack names are not unique (stack names are per backend,
 * and many teams call theirs `dev`): on its own it proves nothing.
 */
export const ownerVariable = "PULUMI_GPUCLOUD_OWNER";

/**
 * The stack's identity: a random token (22 characters) the stack's InstanceSweeper makes when it is created and
 * keeps in its state. No other stack has it, whatever its names or backend.
 */
export const stackTokenVariable = "PULUMI_GPUCLOUD_STACK";

/** A digest of what the instance runs, so that only an instance of the same spec is adopted. */
export const specVariable = "PULUMI_GPUCLOUD_SPEC";

/** Marks one create call, to find its instance when the reply is lost. */
export const createTokenVariable = "PULUMI_GPUCLOUD_CREATE_TOKEN";

/** 128 random bits, base64url: 22 characters, stored in each instance's inputs and outputs. */
export function newStackToken(): string {
  return randomBytes(16).toString("base64url");
}

/**
 * The label an instance carries from its rent until create hands it over to the engine, when
 * it is relabelled with the program's label. The environment cannot be changed after a rent;
 * the label can, and the service filters the instance list by it. Only an instance still
 * carrying it can be a leftover of an interrupted create: one that was ever handed over (and
 * then perhaps retained, or removed with `pulumi state delete`) never carries it again.
 */
export function creatingLabelOf(stackToken: string): string {
  return `pulumi-gpucloud:creating:${stackToken}`;
}

/** The list query for the instances this stack's interrupted creates may have left. */
export function leftoversQuery(stackToken: string): InstanceListQuery {
  return { selectFilters: { label: { eq: creatingLabelOf(stackToken) } } };
}

/**
 * True when the instance is a leftover of one of this stack's creates: being created (never
 * handed over) and marked with this stack's token. Checked on each instance, whatever the list
 * was filtered by.
 */
export function isLeftoverOf(instance: InstanceWire, stackToken: string): boolean {
  return (
    instance.label === creatingLabelOf(stackToken) &&
    environmentOf(instance)[stackTokenVariable] === stackToken
  );
}

export function ownerOf(project: string, stack: string, resourceName: string): string {
  return `${project}/${stack}/${resourceName}`;
}

/**
 * What the Instance and NodeGroup classes add to a program's inputs, for the plugin to add from
 * what the engine tells it: the owner names the resource, and the stack token proves what it
 * rents is this stack's. Values already present are kept.
 */
export function withOwnerAndToken(
  news: Record<string, unknown>,
  { project, stack, name, stackToken }: ResourceContext,
): Record<string, unknown> {
  return {
    ...news,
    owner: news["owner"] ?? ownerOf(project, stack, name),
    ...(stackToken !== undefined && news["stackToken"] === undefined ? { stackToken } : {}),
  };
}

/** The owners of one stack's instances share this prefix (as do those of its namesakes). */
export function stackPrefixOf(project: string, stack: string): string {
  return `${project}/${stack}/`;
}

/** The resource name, for progress lines and errors; "instance" for stacks older than owners. */
export function resourceNameOf(owner: string | undefined): string {
  return owner?.split("/").slice(2).join("/") || "instance";
}

/** What an adopted leftover must have been rented with (the order of releases before this). */
const specFields = ["image", "diskGb", "onstart", "env", "runtype", "price"] as const;

export function specOf(inputs: InstanceInputs): string {
  const values: unknown[] = specFields.map((field) =>
    field === "runtype" ? (runtypeOf(inputs) ?? null) : (inputs[field] ?? null),
  );
  // Only when given: the digest of every instance rented without a template stays as it was.
  if (inputs.templateHashId !== undefined) values.push(inputs.templateHashId);
  // Likewise: an instance on another overlay, or mounting another volume, is never adopted.
  if (inputs.overlay !== undefined) values.push({ overlay: inputs.overlay });
  if (inputs.networkVolume !== undefined) {
    const { volumeId, mountPath } = inputs.networkVolume;
    values.push({ networkVolume: { volumeId, mountPath } });
  }
  // Likewise: a leftover whose watchdog would stop or destroy it otherwise is never adopted.
  const lifetime = lifetimeOf(inputs);
  if (lifetime !== undefined) values.push({ lifetime });
  const idle = idleRuleOf(inputs);
  if (idle !== undefined) values.push({ idle });
  const spec = JSON.stringify(values);
  return createHash("sha256").update(spec).digest("hex").slice(0, 32);
}

/**
 * The marker variables a new instance of these inputs carries. Without a stack token (the
 * provider called directly, not through the Instance class) nothing can prove the instance is a
 * stack's own: it carries only its create token, and no cleanup or adoption ever touches it.
 */
export function markersOf(inputs: InstanceInputs, token: string): Record<string, string> {
  return {
    [createTokenVariable]: token,
    ...(inputs.owner === undefined
      ? {}
      : { [ownerVariable]: inputs.owner, [specVariable]: specOf(inputs) }),
    ...(inputs.stackToken === undefined ? {} : { [stackTokenVariable]: inputs.stackToken }),
  };
}

export function ownerOfInstance(instance: InstanceWire): string | undefined {
  return environmentOf(instance)[ownerVariable];
}

export function specOfInstance(instance: InstanceWire): string | undefined {
  return environmentOf(instance)[specVariable];
}
