import { createHash } from "node:crypto";
import { environmentOf, type Instance as InstanceWire } from "../../client";
import { replacingFields } from "./diff";
import type { InstanceInputs } from "./inputs";

/**
 * Every instance this provider rents carries, in its environment (which the service returns),
 * the identity of the resource that rented it: `<project>/<stack>/<resource name>`. A dynamic
 * provider is not told its URN, so the Instance class passes this as the `owner` input. With it
 * a later run finds what an interrupted one rented and never recorded.
 */
export const ownerVariable = "PULUMI_GPUCLOUD_OWNER";

/** A digest of what the instance runs, so that only an instance of the same spec is adopted. */
export const specVariable = "PULUMI_GPUCLOUD_SPEC";

/** Marks one create call, to find its instance when the reply is lost. */
export const createTokenVariable = "PULUMI_GPUCLOUD_CREATE_TOKEN";

export function ownerOf(project: string, stack: string, resourceName: string): string {
  return `${project}/${stack}/${resourceName}`;
}

/** The owners of one stack share this prefix; no other stack's or project's do. */
export function stackPrefixOf(project: string, stack: string): string {
  return `${project}/${stack}/`;
}

/** The resource name, for progress lines and errors; "instance" for stacks older than owners. */
export function resourceNameOf(owner: string | undefined): string {
  return owner?.split("/").slice(2).join("/") || "instance";
}

export function specOf(inputs: InstanceInputs): string {
  const spec = JSON.stringify(replacingFields.map((field) => inputs[field] ?? null));
  return createHash("sha256").update(spec).digest("hex").slice(0, 32);
}

/** The marker variables a new instance of these inputs carries. */
export function markersOf(inputs: InstanceInputs, token: string): Record<string, string> {
  return {
    [createTokenVariable]: token,
    ...(inputs.owner === undefined
      ? {}
      : { [ownerVariable]: inputs.owner, [specVariable]: specOf(inputs) }),
  };
}

export function ownerOfInstance(instance: InstanceWire): string | undefined {
  return environmentOf(instance)[ownerVariable];
}

export function specOfInstance(instance: InstanceWire): string | undefined {
  return environmentOf(instance)[specVariable];
}

/**
 * Instances the stack records and that a create or a sweep must leave alone, by owner: the
 * instance a replacement replaces (its diff runs in this provider process before the create of
 * the new one), and each instance this process created. The engine is the only record of what
 * the stack holds; this is what of it the provider process has seen.
 */
const recordedByOwner = new Map<string, Set<number>>();

export function rememberRecorded(owner: string | undefined, instanceId: number): void {
  if (owner === undefined) return;
  const ids = recordedByOwner.get(owner) ?? new Set<number>();
  ids.add(instanceId);
  recordedByOwner.set(owner, ids);
}

export function isRecorded(owner: string, instanceId: number): boolean {
  return recordedByOwner.get(owner)?.has(instanceId) ?? false;
}
