import { z } from "zod";
import { checkInputs, fieldFailure, maxReasonChars } from "../../provider/shared/validation";

const schema = z.object({
  name: z.string({ error: "the name" }).max(8, "name must be at most 8 characters"),
  count: z.number({ error: "how many" }).int().min(1),
  env: z.record(z.string().regex(/^[A-Z]+$/, "env names are capitals"), z.string()).optional(),
});
const reasons = (news: Record<string, unknown>) =>
  checkInputs(schema, news, { type: "Example" }).failures.map((failure) => failure.reason);

describe("check failures", () => {
  it("never carry a property, whose value the engine would print", () => {
    const { failures } = checkInputs(
      schema,
      { name: "secret value!", count: 0 },
      { type: "Example" },
    );
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

describe("inputs a resource does not have", () => {
  const resource = z.object({
    maxLifetime: z.string().optional(),
    owner: z.string().optional(),
    readiness: z
      .object({
        http: z.object({ port: z.number().min(1), path: z.string().startsWith("/") }).optional(),
        initialDelaySeconds: z.number().optional(),
      })
      .refine(() => true)
      .optional(),
    ports: z.array(z.object({ port: z.number() })).optional(),
    env: z.record(z.string(), z.string()).optional(),
    offer: z.looseObject({ askId: z.number() }).optional(),
  });
  const check = (news: Record<string, unknown>) =>
    checkInputs(resource, news, { type: "Gpu", hidden: ["owner"] }).failures.map(
      (failure) => failure.reason,
    );

  it("fail naming the field and the closest real one, never the value", () => {
    const failures = check({ maxLifeTime: "secret-8h", ownr: "x" });
    expect(failures).toEqual([
      "maxLifeTime: not an input of Gpu; did you mean maxLifetime?",
      // A field the class sets is never suggested.
      "ownr: not an input of Gpu; the inputs are maxLifetime, readiness, ports, env, offer",
    ]);
    expect(failures.join("\n")).not.toContain("secret-8h");
  });

  it("fail in nested objects of known fields, in lists too, as a Python program spells them", () => {
    expect(
      check({
        readiness: { htpp: { port: 80 }, initial_delay_secs: 5 },
        ports: [{ port: 1 }, { prot: 2 }],
      }),
    ).toEqual([
      "readiness.htpp: not a field of readiness; did you mean http?",
      "readiness.initial_delay_secs: not a field of readiness; did you mean initialDelaySeconds?",
      "ports.1.prot: not a field of ports.1; did you mean port?",
      "ports.1.port: required: a number",
    ]);
  });

  it("leave records, loose objects, the dynamic door's own key and unknown values alone", () => {
    expect(
      check({
        __provider: "exports.handler = ...",
        env: { ANY_NAME: "v" },
        offer: { askId: 1, gpuName: "x" },
        readiness: "04da6b54-80e4-46f7-96ec-b56ff0331ba9",
      }),
    ).toEqual([]);
  });

  it("report every failing field of a nested input at once", () => {
    expect(check({ readiness: { http: { port: 0, path: "health" } } })).toEqual([
      "readiness.http.port: must be at least 1; got 0",
      expect.stringMatching(/^readiness\.http\.path: .*start/),
    ]);
  });
});
