import { EndpointPacer, endpointOf } from "../../../provider/client/pacing";

describe("EndpointPacer", () => {
  it("names an endpoint by method and path, ids replaced", () => {
    expect(endpointOf("GET", "/api/v0/instances/1000001/")).toBe("GET /api/v0/instances/:id/");
    expect(endpointOf("DELETE", "/api/v0/instances/12/ssh/7/")).toBe(
      "DELETE /api/v0/instances/:id/ssh/:id/",
    );
    expect(endpointOf("GET", "/api/v1/instances/")).toBe("GET /api/v1/instances/");
  });

  it("leaves an endpoint unpaced until a 429, then doubles its spacing up to 5 s", () => {
    const pacer = new EndpointPacer();
    const list = "GET /api/v1/instances/";
    expect(pacer.spacingMs(list)).toBe(0);
    const spacings = [];
    for (let n = 0; n < 8; n++) {
      pacer.throttled(list, Date.now() + 1);
      spacings.push(pacer.spacingMs(list));
    }
    expect(spacings).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
    // Another endpoint is not paced by it.
    expect(pacer.spacingMs("GET /api/v0/secrets/")).toBe(0);
  });

  it("grows once for the refusals of requests that were in flight together", () => {
    const pacer = new EndpointPacer();
    const list = "GET /api/v1/instances/";
    const sentAt = Date.now() - 10;
    for (let n = 0; n < 11; n++) pacer.throttled(list, sentAt);
    expect(pacer.spacingMs(list)).toBe(250);
    // A request sent after the growth, refused again: it grows once more.
    pacer.throttled(list, Date.now() + 1);
    expect(pacer.spacingMs(list)).toBe(500);
  });

  it("keeps to a threshold the service names, 10% over its interval, for good", () => {
    const pacer = new EndpointPacer();
    const relabel = "PUT /api/v0/instances/:id/";
    pacer.throttled(relabel, Date.now(), 1.0);
    expect(pacer.spacingMs(relabel)).toBeCloseTo(1100, 5);
    for (let n = 0; n < 20; n++) pacer.answered(relabel);
    expect(pacer.spacingMs(relabel)).toBeCloseTo(1100, 5);
    // A refusal without the threshold still doubles it; answers bring it back to the floor.
    pacer.throttled(relabel, Date.now() + 1);
    expect(pacer.spacingMs(relabel)).toBeCloseTo(2200, 5);
    for (let n = 0; n < 20; n++) pacer.answered(relabel);
    expect(pacer.spacingMs(relabel)).toBeCloseTo(1100, 5);
  });

  it("shortens the spacing as requests are answered, back to unpaced", () => {
    const pacer = new EndpointPacer();
    const list = "GET /api/v1/instances/";
    pacer.throttled(list, Date.now());
    pacer.answered(list);
    expect(pacer.spacingMs(list)).toBeCloseTo(200, 5);
    for (let n = 0; n < 3; n++) pacer.answered(list);
    expect(pacer.spacingMs(list)).toBe(0);
    // Refusals that come one in five requests (not the endpoint's limit) do not keep it paced.
    for (let n = 0; n < 50; n++) {
      if (n % 5 === 0) pacer.throttled(list, Date.now() + 1);
      else pacer.answered(list);
    }
    expect(pacer.spacingMs(list)).toBe(0);
  });

  it("has requests to a paced endpoint take turns, a spacing apart", async () => {
    const pacer = new EndpointPacer(() => 0);
    const list = "GET /api/v1/instances/";
    pacer.throttled(list, Date.now());
    const started = Date.now();
    const turns: number[] = [];
    await Promise.all(
      [0, 1, 2].map(async () => {
        await pacer.turn(list);
        turns.push(Date.now() - started);
      }),
    );
    // The first turn waits out the refusal's spacing too.
    expect(turns[0]).toBeGreaterThanOrEqual(240);
    expect(turns[2]).toBeGreaterThanOrEqual(740);
  });
});
