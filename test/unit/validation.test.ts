import { z } from "zod";
import { checkInputs, fieldFailure, maxReasonChars } from "../../provider/shared/validation";

const schema = z.object({
  name: z.string({ error: "the name" }).max(8, "name must be at most 8 characters"),
  count: z.number({ error: "how many" }).int().min(1),
  env: z.record(z.string().regex(/^[A-Z]+$/, "env names are capitals"), z.string()).optional(),
});
const reasons = (news: Record<string, unknown>) =>
  checkInputs(schema, news).failures.map((failure) => failure.reason);

describe("check failures", () => {
  it("never carry a property, whose value the engine would print", () => {
    const { failures } = checkInputs(schema, { name: "secret value!", count: 0 });
    expect(failures.map((failure) => failure.property)).toEqual(["", ""]);
    expect(JSON.stringify(failures)).not.toContain("secret value!");
  });

  it("say the type received against the type expected, not 'required'", () => {
    expect(reasons({ name: 123, count: "4" })).toEqual([
      "name: expected a string, received 123 (the name)",
      "count: expected a number, received a string holding a number (convert it to a number) (how many)",
    ]);
    expect(reasons({})).toEqual(["name: required: the name", "count: required: how many"]);
    expect(reasons({ name: null, count: 1 })).toEqual(["name: required: the name"]);
  });

  it("give the limit and the actual size, never the text", () => {
    expect(reasons({ name: "x".repeat(5000), count: 0 })).toEqual([
      "name: must be at most 8 characters; got 5000 characters",
      "count: how many: must be at least 1; got 0",
    ]);
  });

  it("name a record's bad key with the rule it breaks", () => {
    expect(reasons({ name: "n", count: 1, env: { "A B": "v" } })).toEqual([
      'env: the name "A B" is not allowed: env names are capitals',
    ]);
  });

  it("are one line of bounded length", () => {
    const { reason } = fieldFailure("field", `a\nb ${"y".repeat(5000)}`);
    expect(reason).not.toContain("\n");
    expect(reason.length).toBe(maxReasonChars);
  });
});
