import { resourceModules } from "../../provider/registry";
import type { BadInput } from "../../provider/shared/resource-descriptor";

export type { BadInputCase } from "../../provider/shared/resource-descriptor";

/**
 * Bad input as a new user writes it, one resource per group with several bad fields: each field
 * must fail `check` with one line naming it and saying what is allowed, never echoing a value.
 * Each resource's descriptor holds its own groups (`badInputs`); here they are named after it.
 * test/contract/bad-input.test.ts checks every group against each resource's check;
 * test/e2e/bad-input.test.ts runs a few through the engine, where printing matters.
 */
export interface BadResourceInput extends BadInput {
  /** The resource type, as `gpucloud.<type>`. */
  readonly type: string;
}

export const badResourceInputs: readonly BadResourceInput[] = resourceModules.flatMap(
  ({ descriptor: { type, badInputs } }) =>
    badInputs().map((group) => ({ ...group, what: `${type}: ${group.what}`, type })),
);
