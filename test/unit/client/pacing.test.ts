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
    // Offer search: no threshold documented, so only its refusals pace it.
    const list = "POST /api/v0/bundles/";
    expect(pacer.spacingMs(list)).toBe(0);
    const spacings = [];
    for (let n = 0; n < 8; n++) {
      pacer.throttled(list, Date.now() + 1);
      spacings.push(pacer.spacingMs(list));
    }
    expect(spacings).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
    // Another endpoint without a documented threshold is not paced by it.
    expect(pacer.spacingMs("GET /api/v0/webhooks/")).toBe(0);
  });

  it("grows once for the refusals of requests that were in flight together", () => {
    const pacer = new EndpointPacer();
    const list = "POST /api/v0/bundles/";
    const sentAt = Date.now() - 10;
    for (let n = 0; n < 11; n++) pacer.throttled(list, sentAt);
    expect(pacer.spacingMs(list)).toBe(250);
    // A request sent after the growth, refused again: it grows once more.
    pacer.throttled(list, Date.now() + 1);
    expect(pacer.spacingMs(list)).toBe(500);
  });

  it("keeps to a threshold the service names, 2% over its interval, for good", () => {
    // An endpoint the table does not know, to see the threshold of the refusal alone.
    const pacer = new EndpointPacer(Math.random, () => undefined);
    const relabel = "PUT /api/v0/instances/:id/";
    pacer.throttled(relabel, Date.now(), 1.0);
    expect(pacer.spacingMs(relabel)).toBeCloseTo(1020, 5);
    for (let n = 0; n < 20; n++) pacer.answered(relabel);
    expect(pacer.spacingMs(relabel)).toBeCloseTo(1020, 5);
    // A refusal at that pace still doubles it; answers bring it back to the floor.
    pacer.throttled(relabel, Date.now() + 1);
    expect(pacer.spacingMs(relabel)).toBeCloseTo(2040, 5);
    for (let n = 0; n < 20; n++) pacer.answered(relabel);
    expect(pacer.spacingMs(relabel)).toBeCloseTo(1020, 5);
  });

  it("paces every documented endpoint at its threshold once the service refuses any request", () => {
    const pacer = new EndpointPacer();
    const relabel = "PUT /api/v0/instances/:id/";
    const rent = "PUT /api/v0/asks/:id/";
    // A service that has refused nothing is not paced: an unlimited one costs no time.
    expect(pacer.spacingMs(relabel)).toBe(0);
    expect(pacer.spacingMs(rent)).toBe(0);
    pacer.throttled("GET /api/v1/instances/", Date.now(), 1.0);
    // From then on, each from its first request, before a refusal of its own.
    expect(pacer.spacingMs(relabel)).toBeCloseTo(1020, 5);
    expect(pacer.spacingMs(rent)).toBeCloseTo(1020 / 4.5, 5);
    // The documented pace is a floor: answers do not shorten it.
    for (let n = 0; n < 20; n++) pacer.answered(relabel);
    expect(pacer.spacingMs(relabel)).toBeCloseTo(1020, 5);
    // An endpoint without a documented threshold stays unpaced until its own refusals.
    expect(pacer.spacingMs("POST /api/v0/bundles/")).toBe(0);
  });

  it("gives the first refusal of a documented endpoint its threshold's pace, not a doubling of it", () => {
    const pacer = new EndpointPacer();
    const list = "GET /api/v1/instances/";
    const sentAt = Date.now() - 10;
    // Twelve lists sent at once, unpaced: eleven refusals, one pace.
    for (let n = 0; n < 11; n++) pacer.throttled(list, sentAt, 1.0);
    expect(pacer.spacingMs(list)).toBeCloseTo(1020, 5);
  });

  it("shortens the spacing as requests are answered, back to unpaced", () => {
    const pacer = new EndpointPacer();
    const list = "POST /api/v0/bundles/";
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
    const list = "POST /api/v0/bundles/";
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

  it("adds jitter only to a spacing above the floor, never to the service's own pace", async () => {
    const random = jest.fn(() => 1);
    // Every endpoint documented at 3 a second: a floor of 340 ms.
    const pacer = new EndpointPacer(random, () => 3);
    const list = "GET /api/v1/instances/";
    // A refusal elsewhere: the list is paced at its floor from its next request.
    pacer.throttled("PUT /api/v0/asks/:id/", Date.now());
    await pacer.turn(list);
    await pacer.turn(list);
    // A lone process keeps the floor exactly: its turns draw no jitter.
    expect(random).not.toHaveBeenCalled();
    // Refused at the floor (another process on the key): the doubled spacing is jittered, so
    // that the two do not come back in step. The jitter is drawn as the turn is reserved.
    pacer.throttled(list, Date.now() + 1);
    expect(pacer.spacingMs(list)).toBeCloseTo(680, 5);
    const abandoned = new AbortController();
    const waiting = pacer.turn(list, abandoned.signal).catch(() => "abandoned");
    expect(random).toHaveBeenCalledTimes(1);
    abandoned.abort();
    await expect(waiting).resolves.toBe("abandoned");
  });

  it("keeps turns a spacing apart when they are given, though a busy loop made them late", async () => {
    const pacer = new EndpointPacer(() => 0);
    const search = "POST /api/v0/bundles/";
    pacer.throttled(search, Date.now());
    const given = Promise.all(
      [0, 1, 2, 3].map(async () => {
        await pacer.turn(search);
        return Date.now();
      }),
    );
    // The process is busy from 100 to 700 ms: turns due at 250 and 500 ms come due together.
    setTimeout(() => {
      const until = Date.now() + 600;
      while (Date.now() < until);
    }, 100);
    const turns = (await given).sort((a, b) => a - b);
    // Each time is read as its caller resumes, which the clock may see a millisecond after the
    // pacer gave the turn: a gap can read 1 ms short of the spacing the pacer kept.
    for (let n = 1; n < turns.length; n++) {
      expect((turns[n] ?? 0) - (turns[n - 1] ?? 0)).toBeGreaterThanOrEqual(249);
    }
  });
});
