import { Budget, dollars, OverBudgetError, type Running } from "../../provider/run/budget";

// The stack's cap at `up` (provider/run/budget.ts): what it holds, what it refuses, and what
// creates running at once see of each other.
describe("the run's budget", () => {
  const request = (dollarsPerHour: number, running: readonly Running[] = [], stack = "s1") => ({
    stack,
    readRunning: () => Promise.resolve(running),
    name: "web",
    what: "ask 40001",
    dollarsPerHour,
  });

  it("writes prices in cents, and fractions of a cent where they matter", () => {
    expect([0.35, 2.8, 3, 0.350333, 0.0028].map(dollars)).toEqual([
      "$0.35",
      "$2.80",
      "$3.00",
      "$0.3503",
      "$0.0028",
    ]);
  });

  it("holds nothing and reads nothing without a cap", async () => {
    const budget = new Budget(() => undefined);
    const read = jest.fn(() => Promise.resolve([]));
    await expect(budget.reserve({ ...request(100), readRunning: read })).resolves.toBeUndefined();
    expect(read).not.toHaveBeenCalled();
  });

  it("counts what the stack runs, and refuses in one line naming price, total and cap", async () => {
    const budget = new Budget(() => 3);
    const running = [{ key: "instance:1", dollarsPerHour: 2.5 }];
    const refused = budget.reserve(request(0.75, running));
    await expect(refused).rejects.toThrow(OverBudgetError);
    const message = await refused.then(
      () => "",
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    expect(message.split("\n")).toHaveLength(1);
    expect(message).toContain("$0.75/h");
    expect(message).toContain("$2.50/h");
    expect(message).toContain("$3.00/h");
    expect(message).toContain("pulumi config set gpucloud:maxDollarsPerHour 3.25");
    expect(message).toContain("deleteBeforeReplace");
    await expect(budget.reserve(request(0.5, running))).resolves.toBeDefined();
  });

  it("reads the account once per stack, however many creates ask at once", async () => {
    const budget = new Budget(() => 10);
    const read = jest.fn(() => Promise.resolve([{ key: "instance:1", dollarsPerHour: 1 }]));
    await Promise.all([1, 2, 3].map(() => budget.reserve({ ...request(1), readRunning: read })));
    expect(read).toHaveBeenCalledTimes(1);
    expect(budget.totalOf("s1")).toBe(4);
    // Another stack of the same run is read and counted on its own.
    await budget.reserve(request(1, [], "s2"));
    expect(budget.totalOf("s2")).toBe(1);
  });

  it("admits exactly as many parallel creates as the cap holds", async () => {
    const budget = new Budget(() => 7);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () => budget.reserve(request(1))),
    );
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(7);
    const refused = outcomes.filter((o) => o.status === "rejected");
    expect(refused).toHaveLength(3);
    for (const outcome of refused) expect(outcome.reason).toBeInstanceOf(OverBudgetError);
  });

  it("frees a released hold, keeps a landed one until it is gone", async () => {
    const budget = new Budget(() => 2);
    const first = await budget.reserve(request(1));
    const second = await budget.reserve(request(1));
    await expect(budget.reserve(request(1))).rejects.toThrow(OverBudgetError);
    second?.release();
    second?.release();
    expect(budget.totalOf("s1")).toBe(1);
    first?.landed("instance:7");
    expect(budget.totalOf("s1")).toBe(1);
    const third = await budget.reserve(request(1));
    expect(third).toBeDefined();
    await expect(budget.reserve(request(0.5))).rejects.toThrow(OverBudgetError);
    budget.gone("instance:7");
    expect(budget.totalOf("s1")).toBe(1);
    await expect(budget.reserve(request(0.5))).resolves.toBeDefined();
  });

  it("counts what the service reports once an instance runs", async () => {
    const budget = new Budget(() => 2);
    (await budget.reserve(request(1)))?.landed("instance:3");
    budget.repriced("instance:3", 1.25);
    expect(budget.totalOf("s1")).toBe(1.25);
  });

  it("a destroy seen before the account's read lands is not counted by it", async () => {
    const budget = new Budget(() => 2);
    let answer: (rows: Running[]) => void = () => {};
    const read = new Promise<Running[]>((resolve) => (answer = resolve));
    const reserving = budget.reserve({ ...request(1), readRunning: () => read });
    budget.gone("instance:9");
    answer([{ key: "instance:9", dollarsPerHour: 1.5 }]);
    await expect(reserving).resolves.toBeDefined();
    expect(budget.totalOf("s1")).toBe(1);
  });

  it("a failed read is not kept: the next reservation reads again", async () => {
    const budget = new Budget(() => 2);
    await expect(
      budget.reserve({ ...request(1), readRunning: () => Promise.reject(new Error("down")) }),
    ).rejects.toThrow("down");
    await expect(budget.reserve(request(1))).resolves.toBeDefined();
  });

  it("a group's nodes spend its hold first; only what exceeds it is new", async () => {
    const budget = new Budget(() => 3);
    const group = await budget.reserve(request(2));
    // Another create takes the rest of the cap.
    await budget.reserve(request(1));
    const node = await budget.reserve({ ...request(1), from: group });
    expect(node).toBeDefined();
    expect(group?.dollarsPerHour).toBe(1);
    // A node priced above what is left of the hold needs room beyond it: there is none.
    await expect(budget.reserve({ ...request(1.5), from: group })).rejects.toThrow(OverBudgetError);
    // The refusal left the hold whole.
    expect(group?.dollarsPerHour).toBe(1);
    expect(budget.totalOf("s1")).toBe(3);
    group?.release();
    expect(budget.totalOf("s1")).toBe(2);
  });
});
