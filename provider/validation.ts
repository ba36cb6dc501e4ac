import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";

/** The value a dynamic provider sees for an input that is not known yet (during preview). */
export const unknownValue = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** True when the value, or anything inside it, is not known yet. */
export function containsUnknown(value: unknown): boolean {
  if (value === unknownValue) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (typeof value === "object" && value !== null)
    return Object.values(value).some(containsUnknown);
  return false;
}

/**
 * Checks inputs field by field against a resource's schema. A field not known yet at preview
 * is left for the real run; every other problem becomes a check failure naming the field and
 * the fix, so a bad program fails at preview and sends nothing to the service.
 */
export function checkInputs<Shape extends z.ZodRawShape>(
  schema: z.ZodObject<Shape>,
  news: Record<string, unknown>,
): { inputs: z.infer<z.ZodObject<Shape>>; failures: pulumi.dynamic.CheckFailure[] } {
  const inputs = new Map(Object.entries(news));
  const failures: pulumi.dynamic.CheckFailure[] = [];
  for (const [name, field] of Object.entries(schema.shape)) {
    if (containsUnknown(news[name])) continue;
    const parsed = z.safeParse(field, news[name]);
    if (parsed.success) {
      if (parsed.data === undefined) inputs.delete(name);
      else inputs.set(name, parsed.data);
    } else {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? `${name}.${issue.path.join(".")}` : name;
      failures.push({ property: name, reason: `${where}: ${issue?.message ?? "invalid"}` });
    }
  }
  // Unknown fields stay as the engine sent them; the schema holds for everything known.
  return { inputs: Object.fromEntries(inputs) as z.infer<z.ZodObject<Shape>>, failures };
}
