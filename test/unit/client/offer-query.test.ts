import {
  compileInstanceOfferQuery,
  compileVolumeOfferQuery,
  withCondition,
} from "../../../provider/client/offer-query";
import { OfferQueryError } from "../../../provider/client/offer-query-language";
import { type InstanceOffer, instanceOfferSchema } from "../../../provider/client/offer-schemas";
import { satisfies } from "../../../provider/client/offer-verification";

const offer = (fields: Record<string, unknown> = {}): InstanceOffer =>
  instanceOfferSchema.parse({
    id: 40001,
    gpu_name: "RTX 4090",
    num_gpus: 1,
    gpu_ram: 24564,
    gpu_total_ram: 24564,
    dph_total: 0.35,
    reliability: 0.995,
    geolocation: "Oregon, US",
    machine_id: 41207,
    hosting_type: 0,
    verification: "verified",
    rentable: true,
    rented: false,
    external: false,
    cpu_ram: 64000,
    ...fields,
  });

const failure = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(OfferQueryError);
    return (error as Error).message;
  }
  throw new Error("expected an OfferQueryError");
};

describe("instance offer queries", () => {
  it("turn the typed object into the service's body: GB to MB, plain values as eq, defaults", () => {
    const { body } = compileInstanceOfferQuery({
      gpuName: { in: ["RTX 4090", "RTX 3090"] },
      numGpus: 1,
      gpuRamGb: { gte: 24 },
      dollarsPerHour: { lte: 0.6 },
      reliability: { gte: 0.98 },
      geolocation: { notin: ["CN"] },
    });
    expect(body).toEqual({
      verified: { eq: true },
      rentable: { eq: true },
      rented: { eq: false },
      external: { eq: false },
      gpu_name: { in: ["RTX 4090", "RTX 3090"] },
      num_gpus: { eq: 1 },
      gpu_ram: { gte: 24000 },
      dph_total: { lte: 0.6 },
      reliability: { gte: 0.98 },
      geolocation: { notin: ["CN"] },
      order: [["dph_total", "asc"]],
      type: "on-demand",
    });
  });

  it("the official client's string syntax produces the same body as the object", () => {
    const fromString = compileInstanceOfferQuery(
      "gpu_name=RTX_4090 num_gpus>=2 dph<0.6 gpu_ram>=24 geolocation in [US,CA] verified=false",
    );
    const fromObject = compileInstanceOfferQuery({
      gpuName: "RTX 4090",
      numGpus: { gte: 2 },
      dollarsPerHour: { lt: 0.6 },
      gpuRamGb: { gte: 24 },
      geolocation: { in: ["US", "CA"] },
      verified: false,
    });
    expect(fromString.body).toEqual(fromObject.body);
    expect(fromString.body["verified"]).toEqual({ eq: false });
  });

  it("None in the string syntax is null for the fields that have none: cluster_id!=None", () => {
    expect(compileInstanceOfferQuery("cluster_id!=None num_gpus=8").body).toEqual(
      compileInstanceOfferQuery({ clusterId: { neq: null }, numGpus: 8 }).body,
    );
    expect(compileInstanceOfferQuery("cluster_id=None").body["cluster_id"]).toEqual({ eq: null });
    expect(() => compileInstanceOfferQuery("num_gpus=None")).toThrow(/"None" is not a number/);
  });

  it("order, limit and the interruptible type go to the body in the API's names", () => {
    const { body } = compileInstanceOfferQuery({
      order: [["reliability", "desc"]],
      limit: 5,
      type: "interruptible",
    });
    expect(body).toMatchObject({ order: [["reliability", "desc"]], limit: 5, type: "bid" });
  });

  it.each<[string, unknown, string]>([
    ["an unknown field", { gpuNmae: "RTX 4090" }, "gpuNmae: not a field of instance offer queries"],
    [
      "an operator the field does not take",
      { gpuName: { gt: "A" } },
      'gpuName: operator "gt" is not allowed',
    ],
    ["a value of the wrong type", { numGpus: "two" }, 'numGpus: got "two"; expected a number'],
    ["an operand of the wrong type", { dollarsPerHour: { lte: "0.5" } }, "dollarsPerHour.lte: got"],
    ["a list without in", { gpuName: ["A", "B"] }, "gpuName: got a list; write {in: [...]}"],
    [
      "in without a list",
      { geolocation: { in: "US" } },
      'geolocation.in: got "US"; expected a list',
    ],
    ["a bad order", { order: [["price", "asc"]] }, "order: got"],
    ["a bad type", { type: "spot" }, 'type: got "spot"'],
    ["a bad limit", { limit: 0 }, "limit: got 0"],
  ])("fail naming the field for %s", (_what, query, message) => {
    expect(failure(() => compileInstanceOfferQuery(query as never))).toContain(message);
  });

  it("take a field written in snake_case (as from Python) as the same field", () => {
    const camel = compileInstanceOfferQuery({
      gpuRamGb: { gte: 24 },
      dollarsPerHour: { lte: 1 },
      order: [["dollarsPerHour", "asc"]],
    });
    const snake = compileInstanceOfferQuery({
      gpu_ram_gb: { gte: 24 },
      dollars_per_hour: { lte: 1 },
      order: [["dollars_per_hour", "asc"]],
    } as never);
    expect(snake.body).toEqual(camel.body);
    expect(snake.normalized).toEqual(camel.normalized);
    expect(failure(() => compileInstanceOfferQuery({ gpu_ram_gb: 1, gpuRamGb: 2 } as never))).toBe(
      "gpuRamGb: the same field as gpuRamGb; give it once",
    );
  });

  it("take Python's in_ for in (a keyword: the SDK's TypedDicts spell it so)", () => {
    const camel = compileInstanceOfferQuery({ gpuName: { in: ["RTX 4090", "RTX 3090"] } });
    const python = compileInstanceOfferQuery({
      gpu_name: { in_: ["RTX 4090", "RTX 3090"] },
    } as never);
    expect(python.body).toEqual(camel.body);
    expect(
      failure(() => compileInstanceOfferQuery({ gpuName: { in: ["A"], in_: ["B"] } } as never)),
    ).toBe("gpuName: in_ is the same operator as in; give it once");
  });

  it.each<[unknown, string]>([
    [
      { gpuRam: 24 },
      "gpuRam: not a field of instance offer queries; did you mean gpuRamGb? the fields are",
    ],
    [{ gpuNmae: "A" }, "did you mean gpuName?"],
    [{ reliabilty: 0.9 }, "did you mean reliability?"],
  ])("answer a misspelled field with the closest one: %j", (query, message) => {
    expect(failure(() => compileInstanceOfferQuery(query as never))).toContain(message);
  });

  it("say no closest field when none is close", () => {
    expect(failure(() => compileInstanceOfferQuery({ colour: "red" } as never))).not.toContain(
      "did you mean",
    );
  });

  it.each<[string, string]>([
    ["gpu_name=RTX_4090 colour=red", '"colour=red": unknown field colour'],
    ["num_gpus>=two", '"num_gpus>=two": "two" is not a number'],
    ["gpu_name>A", '"gpu_name>A": gpu_name takes eq, neq, in, notin, not gt'],
    ["num_gpus", '"num_gpus": not a condition'],
  ])("strings that do not parse fail naming the token: %s", (text, message) => {
    expect(failure(() => compileInstanceOfferQuery(text))).toContain(message);
  });

  it("verify offers against every condition, the defaults included", () => {
    const compiled = compileInstanceOfferQuery({
      gpuName: "RTX_4090",
      gpuRamGb: { gte: 24 },
      reliability: { gte: 0.99 },
      geolocation: { notin: ["CN"] },
    });
    expect(compiled.mismatch(offer())).toBeUndefined();
    expect(compiled.mismatch(offer({ reliability: 0.9 }))).toBe("reliability 0.9 is not gte 0.99");
    expect(compiled.mismatch(offer({ gpu_ram: 12000 }))).toContain(
      "gpuRamGb 12000 (gpuRamMb) is not gte 24000",
    );
    expect(compiled.mismatch(offer({ geolocation: "Beijing, CN" }))).toContain("geolocation");
    expect(compiled.mismatch(offer({ rented: true }))).toBe("rented true is not eq false");
    expect(compiled.mismatch(offer({ verification: "unverified" }))).toBe(
      "verified false is not eq true",
    );
  });

  it.each<[string, unknown, string, unknown, boolean]>([
    ["eq", 1, "eq", 1, true],
    ["eq differs", 1, "eq", 2, false],
    ["eq with underscores", "RTX 4090", "eq", "RTX_4090", true],
    ["neq", "A", "neq", "B", true],
    ["gt", 2, "gt", 1, true],
    ["gt equal", 1, "gt", 1, false],
    ["gte", 1, "gte", 1, true],
    ["lt", 0.5, "lt", 0.6, true],
    ["lte", 0.7, "lte", 0.6, false],
    ["in", "US", "in", ["US", "CA"], true],
    ["notin", "CN", "notin", ["CN"], false],
    ["comparisons never hold for a missing value", null, "gte", 0, false],
  ])("satisfies: %s", (_what, actual, op, operand, expected) => {
    expect(satisfies(actual, op as never, operand as never)).toBe(expected);
  });

  it("pin a query to a machine, keeping a machine condition the query had", () => {
    expect(withCondition({ numGpus: 1 }, "machineId", 7)).toEqual({ numGpus: 1, machineId: 7 });
    expect(withCondition("machine_id=8", "machineId", 7)).toEqual({
      machineId: { eq: 7, in: [8] },
    });
  });
});

describe("volume offer queries", () => {
  it("send the volume fields in the API's names, cheapest storage first", () => {
    expect(compileVolumeOfferQuery({ diskSpaceGb: { gte: 100 }, geolocation: "US" }).body).toEqual({
      disk_space: { gte: 100 },
      geolocation: { eq: "US" },
      order: [["storage_cost", "asc"]],
    });
    expect(compileVolumeOfferQuery("disk_space>=100 geolocation=US").body).toEqual(
      compileVolumeOfferQuery({ diskSpaceGb: { gte: 100 }, geolocation: "US" }).body,
    );
  });

  it("reject instance fields and the type option", () => {
    expect(failure(() => compileVolumeOfferQuery({ numGpus: 1 } as never))).toContain(
      "numGpus: not a field of volume offer queries",
    );
    expect(failure(() => compileVolumeOfferQuery({ type: "on-demand" } as never))).toContain(
      "type: not a field",
    );
  });
});
