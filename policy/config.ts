import { z } from "zod";

// The rules' names and their config (`--policy-pack-config <file>`: one entry per rule).

export const policyNames = {
  budget: "gpucloud-stack-budget",
  gpus: "gpucloud-allowed-gpus",
  reliability: "gpucloud-min-reliability",
  verified: "gpucloud-verified-hosts",
  lifetime: "gpucloud-max-lifetime",
} as const;

// The CLI checks each rule's config against its schema below but ignores keys it does not know
// (it passes on only `properties` and `required`): a misspelt setting would silently turn its
// rule off, so the rules check their config again, strictly, and fail the run on anything else.
const level = { enforcementLevel: z.string().optional() };
export const budgetConfig = z.strictObject({
  ...level,
  maxDollarsPerHour: z.number().positive().optional(),
});
export const gpusConfig = z.strictObject({ ...level, allowed: z.array(z.string()).optional() });
export const reliabilityConfig = z.strictObject({
  ...level,
  minReliability: z.number().min(0).max(1).optional(),
});
export const noConfig = z.strictObject(level);

/**
 * A mistake in the policy pack config, said in one line: @pulumi/policy shows a rule's error by
 * its stack, which for this one is its message alone (a stack trace says nothing of the config).
 */
export class PolicyConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PolicyConfigError";
    this.stack = message;
  }
}

/** The rule's config, or an error naming the rule, the setting and what its config may hold. */
export function configOf<S extends z.ZodObject>(
  policy: string,
  schema: S,
  raw: unknown,
): z.infer<S> {
  const parsed = schema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const settings = Object.keys(schema.shape).join(", ");
  const problems = parsed.error.issues
    .map((issue) =>
      issue.code === "unrecognized_keys"
        ? `no setting ${issue.keys.map((key) => `"${key}"`).join(", ")}`
        : `${issue.path.join(".") || "(config)"}: ${issue.message}`,
    )
    .join("; ");
  throw new PolicyConfigError(
    `policy pack config of ${policy}: ${problems} (its settings: ${settings})`,
  );
}
